import { rmSync } from 'node:fs';

/** After the last worker: stops the run's DynamoDB Local and removes the compile cache (./global-setup.js). */
export default async function globalTeardown() {
  await globalThis.sharedDynamoDb?.stop();
  if (globalThis.compileCache) rmSync(globalThis.compileCache, { recursive: true, force: true });
}
