/**
 * Before any worker starts: the run's DynamoDB Local (./shared-dynamodb.ts). jest loads this file
 * outside its ES module transform, so the TypeScript is loaded through tsx.
 */
import { tsImport } from 'tsx/esm/api';

export default async function globalSetup(config) {
  const { startSharedDynamoDb } = await tsImport('./shared-dynamodb.ts', import.meta.url);
  globalThis.sharedDynamoDb = await startSharedDynamoDb(config.testPathPatterns.patterns);
}
