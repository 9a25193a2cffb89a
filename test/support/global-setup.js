/**
 * Before any worker starts: the run's DynamoDB Local (./shared-dynamodb.ts). jest loads this file
 * outside its ES module transform; Node.js strips the TypeScript's types itself.
 */
export default async function globalSetup(config) {
  const { startSharedDynamoDb } = await import('./shared-dynamodb.ts');
  globalThis.sharedDynamoDb = await startSharedDynamoDb(config.testPathPatterns.patterns);
}
