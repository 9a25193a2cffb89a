/** DynamoDB Local on a free port, in memory, with the project's table, for one test file. */
import { freePort } from '../../local/net';
import { startDynamoDbLocal } from '../../local/dynamodb';
import { createDocumentClient } from '../../import/document-client';

export const TEST_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

export async function startTestTable(tableName = 'test-table') {
  const port = await freePort();
  const ddb = await startDynamoDbLocal({ port, tableName });
  const client = createDocumentClient({
    region: 'us-east-1',
    endpoint: ddb.endpoint,
    credentials: TEST_CREDENTIALS,
    // The tests' own setup and checks: patient, as the import command is, on a loaded machine.
    requestTimeoutMs: 10_000,
  });
  return {
    endpoint: ddb.endpoint,
    tableName,
    client,
    stop: async () => {
      client.destroy();
      await ddb.stop();
    },
  };
}
