/**
 * Faults between a function and DynamoDB: throttling, a store that resets connections, one that
 * accepts and never answers, a missing table. Each ends in the SPEC status well within the
 * function's 10 s timeout; nothing hangs.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { ApiHandler } from '../../functions/shared/http';
import { functionEnv, startTestTable } from '../support/dynamodb';
import { apiEvent, lambdaContext } from '../support/events';

const FUNCTION_TIMEOUT_MS = 10_000;

type Mode = 'forward' | 'reset' | 'hang';
let mode: Mode = 'forward';
let connections = 0;
const sockets = new Set<Socket>();
let proxy: Server;
let table: Awaited<ReturnType<typeof startTestTable>>;
let handler: ApiHandler;

beforeAll(async () => {
  table = await startTestTable('table-that-exists');
  const upstream = new URL(table.endpoint);
  proxy = createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    if (mode === 'reset') socket.resetAndDestroy();
    else if (mode === 'forward') {
      const out = connect(Number(upstream.port), upstream.hostname);
      out.on('error', () => socket.destroy());
      socket.pipe(out).pipe(socket);
    }
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as { port: number };
  // A table name that does not exist, for the missing-table case; the others never reach it.
  functionEnv(`http://127.0.0.1:${port}`, 'no-such-table');
  ({ handler } = await import('../../functions/get-transaction'));
}, 90_000);

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((resolve) => proxy?.close(resolve));
  await table?.stop();
});

function setMode(next: Mode): void {
  mode = next;
  connections = 0;
  for (const s of sockets) s.destroy();
}

async function timedGet() {
  const started = Date.now();
  const result = await handler(
    apiEvent('GET /transactions/{transaction_id}', { transaction_id: '1' }),
    lambdaContext,
  );
  return { result, ms: Date.now() - started, body: JSON.parse(result.body) };
}

describe('DynamoDB faults (SPEC 4)', () => {
  test('connections reset: 503 with Retry-After after the configured attempts', async () => {
    setMode('reset');
    const { result, body, ms } = await timedGet();
    expect(result.statusCode).toBe(503);
    expect(result.headers['Retry-After']).toBe('1');
    expect(body).toEqual({ message: 'Service unavailable', data: null });
    expect(connections).toBe(3);
    expect(ms).toBeLessThan(FUNCTION_TIMEOUT_MS);
  });

  test('a store that accepts and never answers: 503 after 3 attempts of 1 s, within the function timeout', async () => {
    setMode('hang');
    const { result, ms } = await timedGet();
    expect(result.statusCode).toBe(503);
    expect(connections).toBe(3);
    expect(ms).toBeGreaterThanOrEqual(3000);
    expect(ms).toBeLessThan(FUNCTION_TIMEOUT_MS);
  }, 20_000);

  test('a table that does not exist is a 500, not a retryable 503', async () => {
    setMode('forward');
    const { result, body } = await timedGet();
    expect(result.statusCode).toBe(500);
    expect(body).toEqual({ message: 'Internal server error', data: null });
  });

  test.each([
    'ThrottlingException',
    'ProvisionedThroughputExceededException',
    'RequestLimitExceeded',
    'InternalServerError',
  ])('%s after the SDK retries: 503 with Retry-After', async (name) => {
    const mock = mockClient(DynamoDBDocumentClient);
    mock
      .on(QueryCommand)
      .rejects(Object.assign(new Error('simulated'), { name, $metadata: { httpStatusCode: 400 } }));
    try {
      const { result, body } = await timedGet();
      expect(result.statusCode).toBe(503);
      expect(result.headers['Retry-After']).toBe('1');
      expect(body).toEqual({ message: 'Service unavailable', data: null });
    } finally {
      mock.restore();
    }
  });

  test('the client is configured with explicit attempts and timeouts', async () => {
    const { runtime } = await import('../../functions/shared/runtime');
    expect(await runtime.client.config.maxAttempts()).toBe(3);
  });
});
