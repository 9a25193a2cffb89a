/**
 * Before any worker starts: the run's DynamoDB Local (./shared-dynamodb.ts), and a compile cache for
 * every Node.js process of the run (the workers and the commands the tests start, about 185 of
 * them: a command's start costs about half the CPU with it). jest loads this file outside its ES
 * module transform; Node.js strips the TypeScript's types itself.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';

export default async function globalSetup(config) {
  process.env.NODE_COMPILE_CACHE = globalThis.compileCache = mkdtempSync(
    join(tmpdir(), 'node-compile-cache-'),
  );
  const { startSharedDynamoDb } = await import('./shared-dynamodb.ts');
  globalThis.sharedDynamoDb = await startSharedDynamoDb(config.testPathPatterns.patterns);
}
