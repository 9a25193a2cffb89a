/** After the last worker: stops the run's DynamoDB Local (./global-setup.js). */
export default async function globalTeardown() {
  await globalThis.sharedDynamoDb?.stop();
}
