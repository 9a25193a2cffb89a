/**
 * The real GET handlers, built as a deployed function builds them (createHandler with a deps
 * from its configuration), from an environment of the test's own: process.env is never touched.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createHandler as createCustomerHandler } from '../../functions/customers.ts';
import { createHandler as createTransactionHandler } from '../../functions/transactions.ts';
import { createTableClient } from '../../functions/sdk/table-client.ts';
import { lambdaCredentials } from '../../functions/sdk/lambda-credentials.ts';
import { loadConfig } from '../../functions/shared/config.ts';
import type { ApiHandler } from '../../functions/shared/http.ts';
import { createApiDeps, type ApiDepsOptions } from '../../functions/shared/api-deps.ts';
import { TEST_CREDENTIALS, TEST_CURSOR_KEY } from './dynamodb.ts';

export { MANY_READS } from './budgets.ts';

/**
 * The handlers' clients of this test file: destroyed after its tests, before the file's own
 * afterAll stops the table (this hook is registered first, when the file imports this module),
 * so that no keep-alive socket outlives the file and holds the jest worker open.
 */
const clients = new Set<DynamoDBClient>();
afterAll(() => {
  for (const client of clients) client.destroy();
  clients.clear();
});

/** The environment a function would have, pointed at emulators; `extra` as Lambda would set it. */
export function functionEnv(
  endpoint: string,
  tableName: string,
  extra: Record<string, string> = {},
) {
  return {
    TABLE_NAME: tableName,
    BUCKET_NAME: 'test-files',
    AWS_REGION: 'us-east-1',
    DYNAMODB_ENDPOINT: endpoint,
    S3_ENDPOINT: 'http://127.0.0.1:9',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    CURSOR_KEY: TEST_CURSOR_KEY,
    ...extra,
  };
}

export function testHandlers(
  endpoint: string,
  tableName: string,
  extra: Record<string, string> = {},
  options: Pick<ApiDepsOptions, 'audit' | 'now'> & {
    /** Called with the handlers' client before its first request (middleware that observes). */
    instrument?: (client: DynamoDBClient) => void;
    /**
     * Per-attempt limit, ms; default the deployed function's (1 s). A test of what a function
     * does with a record, not of how long it may take, gives DynamoDB Local on a busy machine
     * more: it answers a 400 KB item in seconds where DynamoDB takes milliseconds.
     */
    requestTimeoutMs?: number;
  } = {},
) {
  const env = functionEnv(endpoint, tableName, extra);
  const config = loadConfig(env);
  const client = createTableClient({
    region: config.region,
    endpoint: config.dynamoDbEndpoint,
    credentials: TEST_CREDENTIALS,
    requestTimeoutMs: options.requestTimeoutMs,
  });
  clients.add(client);
  options.instrument?.(client);
  const deps = createApiDeps(config, {
    audit: options.audit,
    now: options.now,
    client,
    credentials: lambdaCredentials(env),
  });
  const handlers: { transaction: ApiHandler; customer: ApiHandler } = {
    transaction: createTransactionHandler(deps),
    customer: createCustomerHandler(deps),
  };
  return { ...handlers, client };
}
