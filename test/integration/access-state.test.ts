/**
 * SPEC 8 in the functions, against DynamoDB Local: tokens voided by the access command's
 * "not before" instants, read budgets counted in the table and shared by every instance, and
 * exactly one audit event per request, whatever its outcome.
 */
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  COUNTER_SLOTS,
  NOT_BEFORE,
  accessStateKey,
  groupNotBefore,
} from '../../core/access-state.ts';
import { CUSTOMER_READERS_GROUP } from '../../core/groups.ts';
import type { AuditEvent } from '../../functions/shared/audit.ts';
import type { ApiHandler } from '../../functions/shared/http.ts';
import { customer, line, transaction } from '../fixtures.ts';
import { startTestTable } from '../support/dynamodb.ts';
import { apiEvent, lambdaContext, testClaims } from '../support/events.ts';
import { testHandlers } from '../support/handlers.ts';

const WINDOW = 60;
const BUDGETS = {
  READ_BUDGET_CUSTOMERS: '3',
  READ_BUDGET_TRANSACTIONS: '5',
  READ_BUDGET_WINDOW_SECONDS: String(WINDOW),
};
/** The handlers' clock: 10 s into a window, moved on by tests that need the next one. */
let nowMs = (Math.floor(Date.now() / 1000 / WINDOW) * WINDOW + 10) * 1000;
const nowSeconds = () => Math.floor(nowMs / 1000);

let table: Awaited<ReturnType<typeof startTestTable>>;
let handlers: { transaction: ApiHandler; customer: ApiHandler };
const audited: AuditEvent[] = [];
let users = 0;

/** A user of their own for each test, so that budgets and voided tokens do not carry over. */
const newUser = () => `user-${(users += 1)}-sub`;

function get(
  entity: 'transaction' | 'customer',
  id: string,
  claims: Record<string, string>,
  handler = handlers[entity],
) {
  const param = `${entity}_id`;
  const event = apiEvent(`GET /${entity}s/{${param}}`, { [param]: id }, claims);
  return handler(event, lambdaContext);
}

/** Writes an access-state attribute as `npm run access` does. */
async function voidBefore(sub: string, attribute: string, seconds: number) {
  await table.client.send(
    new UpdateCommand({
      TableName: table.tableName,
      Key: accessStateKey(sub),
      UpdateExpression: 'SET #a = :t',
      ExpressionAttributeNames: { '#a': attribute },
      ExpressionAttributeValues: { ':t': seconds },
    }),
  );
}

beforeAll(async () => {
  table = await startTestTable();
  handlers = testHandlers(table.endpoint, table.tableName, BUDGETS, {
    audit: (event) => audited.push(event),
    now: () => nowMs,
  });
  await table.importLines([
    line('transaction', transaction({ id: 1 })),
    line('customer', customer({ id: 1 })),
  ]);
}, 90_000);
afterAll(async () => table?.stop());

describe('access that ends (SPEC 8)', () => {
  test('a token issued before the user\'s "not before" instant: 401 on both routes; a later one reads', async () => {
    const sub = newUser();
    const old = testClaims({ sub, iat: String(nowSeconds() - 5) });
    expect((await get('customer', '1', old)).statusCode).toBe(200);
    await voidBefore(sub, NOT_BEFORE, nowSeconds() - 4);
    for (const entity of ['transaction', 'customer'] as const) {
      const r = await get(entity, '1', old);
      expect([r.statusCode, r.body]).toEqual([401, '{"message":"Unauthorized","data":null}']);
    }
    // A token issued in the second the command set (iat has whole seconds) reads again.
    const fresh = testClaims({ sub, iat: String(nowSeconds() - 4) });
    expect((await get('customer', '1', fresh)).statusCode).toBe(200);
  });

  test('a group removed: the old token is 403 on customers and still reads transactions', async () => {
    const sub = newUser();
    const old = testClaims({ sub, iat: String(nowSeconds() - 5) });
    await voidBefore(sub, groupNotBefore(CUSTOMER_READERS_GROUP), nowSeconds() - 4);
    const c = await get('customer', '1', old);
    expect([c.statusCode, c.body]).toEqual([403, '{"message":"Forbidden","data":null}']);
    expect((await get('transaction', '1', old)).statusCode).toBe(200);
  });

  test.each([
    ['no sub', { sub: '' }],
    ['no iat', { iat: '' }],
    ['an iat that is not whole seconds', { iat: '1700000000.5' }],
  ])('a token with %s cannot be checked: 401', async (_name, overrides) => {
    const r = await get('transaction', '1', testClaims({ sub: newUser(), ...overrides }));
    expect(r.statusCode).toBe(401);
  });
});

describe('read budgets (SPEC 4, 8)', () => {
  test('up to the budget passes; the next is a 429 with the SPEC body and Retry-After', async () => {
    const claims = testClaims({ sub: newUser() });
    for (let i = 0; i < 3; i += 1)
      expect((await get('customer', '1', claims)).statusCode).toBe(200);
    const over = await get('customer', '1', claims);
    expect(over.statusCode).toBe(429);
    expect(over.body).toBe('{"message":"Too many requests","data":null}');
    // 10 s into a 60 s window: 50 s until a read is free again.
    expect(over.headers['Retry-After']).toBe('50');
    // Reads of records that do not exist count too: they are how a script enumerates ids.
    expect((await get('customer', '999', claims)).statusCode).toBe(429);
  });

  test('another user and the other route are unaffected; the next window reads again', async () => {
    const sub = newUser();
    const claims = testClaims({ sub });
    for (let i = 0; i < 3; i += 1) await get('customer', '1', claims);
    expect((await get('customer', '1', claims)).statusCode).toBe(429);
    expect((await get('customer', '1', testClaims({ sub: newUser() }))).statusCode).toBe(200);
    expect((await get('transaction', '1', claims)).statusCode).toBe(200);
    nowMs += WINDOW * 1000;
    try {
      expect((await get('customer', '1', testClaims({ sub }))).statusCode).toBe(200);
    } finally {
      nowMs -= WINDOW * 1000;
    }
  });

  test.each([
    ['a new user', 0],
    // The counter's slot then holds an older window's count: the racing reads start it afresh.
    ['a user who met the budget COUNTER_SLOTS windows ago', COUNTER_SLOTS],
  ])(
    'concurrent reads through several function instances, %s: exactly the budget passes',
    async (_name, windowsAgo) => {
      // Each request given time to answer: an attempt cut at the deployed 1 s and sent again may
      // have been counted already (failing closed, one more refusal), which DynamoDB Local on a
      // busy machine provokes (seen: 2 of 5 allowed, answers at 1.4 s); here the count is tested.
      const instances = Array.from({ length: 4 }, () =>
        testHandlers(table.endpoint, table.tableName, BUDGETS, {
          now: () => nowMs,
          requestTimeoutMs: 30_000,
        }),
      );
      const claims = testClaims({ sub: newUser() });
      if (windowsAgo > 0) {
        nowMs -= windowsAgo * WINDOW * 1000;
        for (let i = 0; i < 6; i += 1) await get('transaction', '1', claims);
        nowMs += windowsAgo * WINDOW * 1000;
      }
      const results = await Promise.all(
        Array.from({ length: 24 }, (_, i) =>
          get('transaction', '1', claims, instances[i % instances.length]!.transaction),
        ),
      );
      const statuses = results.map((r) => r.statusCode);
      expect(statuses.filter((s) => s === 200)).toHaveLength(5);
      expect(statuses.filter((s) => s === 429)).toHaveLength(19);
      for (const instance of instances) instance.client.destroy();
    },
  );
});

describe('the audit trail (SPEC 8)', () => {
  const FIELDS = [
    'apiRequestId',
    'entity',
    'groups',
    'level',
    'message',
    'reads',
    'recordId',
    'requestId',
    'route',
    'sourceIp',
    'status',
    'sub',
    'timestamp',
    'userAgent',
    'username',
  ];

  test('every outcome leaves exactly one event, with the SPEC fields and nothing of the record', async () => {
    const sub = newUser();
    const claims = testClaims({ sub, username: 'auditor-user' });
    await table.client.send(
      new PutCommand({
        TableName: table.tableName,
        Item: { pk: 'TXN#66', sk: 'TXN', id: 66n, v: '00000000000abcd' },
      }),
    );
    const cases: [number, () => Promise<unknown>][] = [
      [200, () => get('customer', '1', claims)],
      [400, () => get('customer', '007', claims)],
      [401, () => get('transaction', '1', { ...claims, token_use: 'id' })],
      [403, () => get('customer', '1', { ...claims, 'cognito:groups': '[]' })],
      [404, () => get('transaction', '424242', claims)],
      [500, () => get('transaction', '66', claims)],
    ];
    for (const [status, call] of cases) {
      audited.length = 0;
      const result = (await call()) as { statusCode: number };
      expect(result.statusCode).toBe(status);
      expect(audited).toHaveLength(1);
      const event = audited[0]!;
      expect(Object.keys(event).sort()).toEqual(FIELDS);
      expect(event).toMatchObject({
        message: 'audit',
        status,
        sub,
        username: 'auditor-user',
        requestId: lambdaContext.awsRequestId,
      });
    }
    // The 429 too.
    for (let i = 0; i < 2; i += 1) await get('customer', '1', claims);
    audited.length = 0;
    expect((await get('customer', '1', claims)).statusCode).toBe(429);
    expect(audited.map((e) => [e.status, e.entity, e.recordId])).toEqual([[429, 'customer', '1']]);
  });

  test('an event says who read which record from where, and holds no personal value of the record', async () => {
    audited.length = 0;
    const claims = testClaims({ sub: newUser(), username: 'reader-user' });
    const event = apiEvent('GET /customers/{customer_id}', { customer_id: '1' }, claims);
    Object.assign(event.requestContext, {
      requestId: 'api-req-1',
      http: { sourceIp: '198.51.100.7', userAgent: 'backoffice/1.0' },
    });
    expect((await handlers.customer(event, lambdaContext)).statusCode).toBe(200);
    expect(audited).toEqual([
      {
        timestamp: expect.any(String),
        level: 'INFO',
        message: 'audit',
        requestId: lambdaContext.awsRequestId,
        apiRequestId: 'api-req-1',
        route: 'GET /customers/{customer_id}',
        entity: 'customer',
        recordId: '1',
        status: 200,
        sub: claims.sub,
        username: 'reader-user',
        groups: [CUSTOMER_READERS_GROUP],
        sourceIp: '198.51.100.7',
        userAgent: 'backoffice/1.0',
        reads: 1,
      },
    ]);
    const text = JSON.stringify(audited);
    for (const value of [
      'Testfirst',
      'Testlast',
      'person@example.test',
      '000-000-000-000',
      'X0000000',
    ])
      expect(text).not.toContain(value);
  });
});
