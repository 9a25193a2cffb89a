/**
 * Faults between a function and DynamoDB: throttling, a store that resets connections, one that
 * accepts and never answers, one that answers slowly, DynamoDB-side errors, answers that are
 * garbage or cut short, a denied role, a missing table. Each ends in the SPEC status well within
 * the function's 10 s timeout; nothing hangs, and no error shows more than the SPEC's message.
 */
import { mockClient } from 'aws-sdk-client-mock';
import {
  DeleteTableCommand,
  DynamoDBClient,
  GetItemCommand,
  UpdateItemCommand,
  type GetItemCommandOutput,
} from '@aws-sdk/client-dynamodb';
import type { AuditEvent } from '../../functions/shared/audit.ts';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { ApiHandler } from '../../functions/shared/http.ts';
import { TRANSACTION } from '../../core/entities.ts';
import { itemOf, keyOf } from '../../core/layout.ts';
import { startVersion } from '../../core/import-version.ts';
import { createTimeCodec } from '../../core/times.ts';
import { createLineParser } from '../../import/records.ts';
import { line, transaction } from '../fixtures.ts';
import { startFaultProxy, type FaultMode, type FaultProxy } from '../support/fault-proxy.ts';
import { startTestTable, TEST_CREDENTIALS } from '../support/dynamodb.ts';
import { testHandlers } from '../support/handlers.ts';
import { apiEvent, lambdaContext } from '../support/events.ts';

/** The deployed function timeout (lib/project-function.ts); every answer must come well before it. */
const FUNCTION_TIMEOUT_MS = 10_000;
let tableName: string;

let proxy: FaultProxy;
let table: Awaited<ReturnType<typeof startTestTable>>;
let handler: ApiHandler;
let client: DynamoDBClient;
const audited: AuditEvent[] = [];
let realGet: () => Promise<GetItemCommandOutput>;

beforeAll(async () => {
  table = await startTestTable('faults-table');
  tableName = table.tableName;
  const parsed = createLineParser(createTimeCodec('UTC'))(line('transaction', transaction()));
  if (!parsed.ok || parsed.kind !== 'put') throw new Error('fixture is invalid');
  await table.client.send(
    new PutCommand({
      TableName: tableName,
      Item: itemOf(TRANSACTION, parsed.record, startVersion()),
    }),
  );
  proxy = await startFaultProxy(table.endpoint);
  ({ transaction: handler, client } = testHandlers(
    proxy.endpoint,
    tableName,
    {},
    { audit: (event) => audited.push(event) },
  ));
  // The record as DynamoDB answers its GetItem, for tests that fake the other request only.
  const { pk, sk } = keyOf(TRANSACTION, 1n) as { pk: string; sk: string };
  const answer = await client.send(
    new GetItemCommand({ TableName: tableName, Key: { pk: { S: pk }, sk: { S: sk } } }),
  );
  realGet = async () => answer;
}, 90_000);

afterAll(async () => {
  await proxy?.stop();
  await table?.stop();
});

async function timedGet(mode: FaultMode | ((connection: number) => FaultMode)) {
  // The client's pool first: a keep-alive socket of the last test, which setMode closes at the
  // proxy, could otherwise take an attempt before the client sees the close (a busy machine),
  // and that attempt would reach no connection (CI once counted 5 of 6). The client stays usable.
  client.destroy();
  await proxy.setMode(mode);
  const started = Date.now();
  const result = await handler(
    apiEvent('GET /transactions/{transaction_id}', { transaction_id: '1' }),
    lambdaContext,
  );
  const ms = Date.now() - started;
  expect(ms).toBeLessThan(FUNCTION_TIMEOUT_MS);
  return { result, ms, body: JSON.parse(result.body), attempts: proxy.connections };
}

const UNAVAILABLE = { message: 'Service unavailable', data: null };
const INTERNAL = { message: 'Internal server error', data: null };

describe('DynamoDB faults (SPEC 4)', () => {
  test('through the proxy, a healthy store answers 200', async () => {
    const { result, attempts } = await timedGet('forward');
    expect(result.statusCode).toBe(200);
    // The record's GetItem and the access-state UpdateItem, sent together (SPEC 6.1, 8).
    expect(attempts).toBe(2);
  });

  test('connections reset: 503 with Retry-After after the configured attempts', async () => {
    const { result, body, attempts } = await timedGet('reset');
    expect(result.statusCode).toBe(503);
    expect(result.headers['Retry-After']).toBe('1');
    expect(body).toEqual(UNAVAILABLE);
    // 3 attempts of each of the two requests.
    expect(attempts).toBe(6);
  });

  test('a store that accepts and never answers: 503 after 3 attempts of 1 s, within the function timeout', async () => {
    const { result, ms, attempts } = await timedGet('hang');
    expect(result.statusCode).toBe(503);
    expect(attempts).toBe(6);
    expect(ms).toBeGreaterThanOrEqual(3000);
  }, 20_000);

  test('a first attempt that gets no answer in time is retried: 200', async () => {
    const { result, ms, attempts } = await timedGet((n) =>
      n === 0 ? { slowMs: 3000 } : 'forward',
    );
    // The first connection's request failed, so a 200 means it was retried (on a new connection,
    // or on the other request's once that one is done).
    expect(result.statusCode).toBe(200);
    expect(attempts).toBeGreaterThanOrEqual(2);
    expect(ms).toBeGreaterThanOrEqual(1000);
  });

  test('throttled on the wire every time: the SDK retries, then 503 with Retry-After', async () => {
    const { result, body, attempts } = await timedGet('throttle');
    expect(result.statusCode).toBe(503);
    expect(result.headers['Retry-After']).toBe('1');
    expect(body).toEqual(UNAVAILABLE);
    expect(attempts).toBe(6);
  });

  test('throttled once, then served: 200 after one retry', async () => {
    const { result, attempts } = await timedGet((n) => (n === 0 ? 'throttle' : 'forward'));
    expect(result.statusCode).toBe(200);
    expect(attempts).toBeGreaterThanOrEqual(2);
  });

  test('DynamoDB answers 500 every time: 503 after the retries', async () => {
    const { result, body, attempts } = await timedGet('http500');
    expect(result.statusCode).toBe(503);
    expect(body).toEqual(UNAVAILABLE);
    expect(attempts).toBe(6);
  });

  test('a body cut short: retried as a transport failure, then 503', async () => {
    const { result, body } = await timedGet('truncated');
    expect(result.statusCode).toBe(503);
    expect(body).toEqual(UNAVAILABLE);
  });

  test('an answer that is not DynamoDB JSON: 500, at once', async () => {
    const { result, body, attempts } = await timedGet('garbage');
    expect(result.statusCode).toBe(500);
    expect(body).toEqual(INTERNAL);
    expect(attempts).toBe(2);
  });

  test('a role without dynamodb:GetItem: 500 (not retryable), at once', async () => {
    const { result, body, attempts } = await timedGet('accessDenied');
    expect(result.statusCode).toBe(500);
    expect(body).toEqual(INTERNAL);
    expect(attempts).toBe(2);
  });

  test.each([
    'ThrottlingException',
    'ProvisionedThroughputExceededException',
    'RequestLimitExceeded',
    'InternalServerError',
  ])('%s after the SDK retries: 503 with Retry-After', async (name) => {
    const mock = mockClient(DynamoDBClient);
    mock.on(UpdateItemCommand).resolves({ Attributes: {} });
    mock
      .on(GetItemCommand)
      .rejects(Object.assign(new Error('simulated'), { name, $metadata: { httpStatusCode: 400 } }));
    try {
      const { result, body } = await timedGet('forward');
      expect(result.statusCode).toBe(503);
      expect(result.headers['Retry-After']).toBe('1');
      expect(body).toEqual(UNAVAILABLE);
    } finally {
      mock.restore();
    }
  });

  test('a TypeError inside the SDK (a bug, though it carries $metadata) is a 500, not a 503', async () => {
    const mock = mockClient(DynamoDBClient);
    mock.on(UpdateItemCommand).resolves({ Attributes: {} });
    mock
      .on(GetItemCommand)
      .rejects(Object.assign(new TypeError('x is not a function'), { $metadata: { attempts: 1 } }));
    try {
      const { result, body } = await timedGet('forward');
      expect(result.statusCode).toBe(500);
      expect(body).toEqual(INTERNAL);
    } finally {
      mock.restore();
    }
  });

  test('the client is configured with explicit attempts and timeouts', async () => {
    expect(await client.config.maxAttempts()).toBe(3);
  });

  describe('the access-state request fails (SPEC 8): never a read without the check', () => {
    test.each([
      'ThrottlingException',
      'ProvisionedThroughputExceededException',
      'RequestLimitExceeded',
      'InternalServerError',
    ])(
      '%s after the SDK retries: 503 with Retry-After, and the request is audited',
      async (name) => {
        const mock = mockClient(DynamoDBClient);
        // The record's GetItem succeeds; only the access state cannot be read or written.
        mock.on(GetItemCommand).callsFake(() => realGet());
        mock
          .on(UpdateItemCommand)
          .rejects(
            Object.assign(new Error('simulated'), { name, $metadata: { httpStatusCode: 400 } }),
          );
        audited.length = 0;
        try {
          const { result, body } = await timedGet('forward');
          expect(result.statusCode).toBe(503);
          expect(result.headers['Retry-After']).toBe('1');
          expect(body).toEqual(UNAVAILABLE);
          expect(mock.commandCalls(GetItemCommand)).toHaveLength(1);
          expect(audited.map((e) => [e.status, e.recordId])).toEqual([[503, '1']]);
        } finally {
          mock.restore();
        }
      },
    );

    test('an answer that is not DynamoDB JSON for the access state: 500, audited', async () => {
      const mock = mockClient(DynamoDBClient);
      mock.on(GetItemCommand).callsFake(() => realGet());
      mock
        .on(UpdateItemCommand)
        .rejects(Object.assign(new SyntaxError('Unexpected token'), { $metadata: {} }));
      audited.length = 0;
      try {
        const { result, body } = await timedGet('forward');
        expect(result.statusCode).toBe(500);
        expect(body).toEqual(INTERNAL);
        expect(audited.map((e) => e.status)).toEqual([500]);
      } finally {
        mock.restore();
      }
    });
  });

  // Last: it deletes the table.
  test('a table that does not exist is a 500, not a retryable 503', async () => {
    const admin = new DynamoDBClient({
      region: 'us-east-1',
      endpoint: table.endpoint,
      credentials: TEST_CREDENTIALS,
    });
    try {
      await admin.send(new DeleteTableCommand({ TableName: tableName }));
    } finally {
      admin.destroy();
    }
    const { result, body, attempts } = await timedGet('forward');
    expect(result.statusCode).toBe(500);
    expect(body).toEqual(INTERNAL);
    expect(attempts).toBe(2);
  });
});
