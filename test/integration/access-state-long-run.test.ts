/**
 * A read-budget store that does not grow with a user's history (SPEC 8): a year of sporadic reads
 * through the real GET handlers, with a clock that moves, against DynamoDB Local. The user's
 * access-state item stays a few hundred bytes, and one more GET costs the write units it cost on
 * day one.
 *
 * @slow: started first on a fresh clone (test/support/sequencer.js).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { COUNTER_SLOTS, accessStateKey } from '../../core/access-state.ts';
import { windowStart } from '../../core/read-budgets.ts';
import type { ApiHandler } from '../../functions/shared/http.ts';
import { line, transaction, customer } from '../fixtures.ts';
import { startTestTable } from '../support/dynamodb.ts';
import { apiEvent, testClaims } from '../support/events.ts';
import { buildLambdaContext } from '../../local/gateway/api-event.ts';
import { testHandlers } from '../support/handlers.ts';
import { sporadicYear } from '../../bench/sporadic-reads.ts';

const WINDOW = 300;
const BUDGETS = {
  READ_BUDGET_CUSTOMERS: '60',
  READ_BUDGET_TRANSACTIONS: '300',
  READ_BUDGET_WINDOW_SECONDS: String(WINDOW),
};
const DAY = 86_400;
/** Monday 2026-01-05, 00:00 UTC. */
const YEAR_START = 1_767_571_200;

let table: Awaited<ReturnType<typeof startTestTable>>;
let handlers: { transaction: ApiHandler; customer: ApiHandler };
let nowMs = YEAR_START * 1000;
/** Write units of each access-state UpdateItem the handlers sent, in order. */
const writeUnits: number[] = [];

/** Asks DynamoDB to return what each UpdateItem consumed, and keeps it. */
function recordWriteUnits(client: DynamoDBClient): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const update = context.commandName === 'UpdateItemCommand';
      if (update) Object.assign(args.input as object, { ReturnConsumedCapacity: 'TOTAL' });
      const result = await next(args);
      const units = (result.output as { ConsumedCapacity?: { CapacityUnits?: number } })
        .ConsumedCapacity?.CapacityUnits;
      if (update && units !== undefined) writeUnits.push(units);
      return result;
    },
    { step: 'initialize', name: 'recordWriteUnits' },
  );
}

/**
 * A function with a minute left, not the 10 s of the shared test context: middy answers 503 at
 * the function's time limit, and DynamoDB Local on a busy machine took over 10 s to read and
 * rewrite an item near 400 KB (what is tested is the answer, not its time).
 */
const lambdaContext = buildLambdaContext({
  awsRequestId: 'test-request',
  getRemainingTimeInMillis: () => 60_000,
});

async function get(entity: 'transaction' | 'customer', sub: string) {
  const param = `${entity}_id`;
  const claims = testClaims({ sub, iat: String(Math.floor(nowMs / 1000) - 60) });
  const event = apiEvent(`GET /${entity}s/{${param}}`, { [param]: '1' }, claims);
  return (await handlers[entity](event, lambdaContext)).statusCode;
}

async function storedItem(sub: string) {
  const { Item } = await table.client.send(
    new GetCommand({ TableName: table.tableName, Key: accessStateKey(sub), ConsistentRead: true }),
  );
  return Item ?? {};
}

/** The item's size as DynamoDB counts it, near enough: names and values in bytes. */
const sizeOf = (item: Record<string, unknown>) =>
  Object.entries(item).reduce((n, [k, v]) => n + k.length + String(v).length, 0);

beforeAll(async () => {
  table = await startTestTable();
  handlers = testHandlers(table.endpoint, table.tableName, BUDGETS, {
    now: () => nowMs,
    audit: () => undefined,
    instrument: recordWriteUnits,
    // Items near DynamoDB's 400 KB limit, read and rewritten by DynamoDB Local on a busy machine
    // (seen: over 10 s with two busy loops beside the test run).
    requestTimeoutMs: 60_000,
  });
  await table.importLines([
    line('transaction', transaction({ id: 1 })),
    line('customer', customer({ id: 1 })),
  ]);
}, 90_000);
afterAll(async () => table?.stop());

test('a year of sporadic reads: the access state stays small and a GET costs what it did on day one', async () => {
  const sub = 'diligent-teller-sub';
  // Day one: the first GET of a new user.
  nowMs = (YEAR_START + 9 * 3600) * 1000;
  writeUnits.length = 0;
  expect(await get('transaction', sub)).toBe(200);
  const dayOne = [...writeUnits];
  expect(dayOne).toHaveLength(1);

  const year = sporadicYear(YEAR_START, WINDOW, COUNTER_SLOTS);
  for (const { seconds, entity } of year) {
    nowMs = seconds * 1000;
    expect(await get(entity, sub)).toBe(200);
  }
  expect(year.length).toBeGreaterThan(800);
  // Hundreds of windows, with gaps between them.
  expect(new Set(year.map((r) => windowStart(r.seconds, WINDOW))).size).toBeGreaterThan(700);

  const item = await storedItem(sub);
  // pk, sk and one counter per route: no counter of an older window is left behind.
  const names = Object.keys(item).sort();
  expect(names).toHaveLength(4);
  expect(names).toEqual([
    'pk',
    expect.stringMatching(/^reads:customer:\d$/),
    expect.stringMatching(/^reads:transaction:\d$/),
    'sk',
  ]);
  expect(sizeOf(item)).toBeLessThan(200);

  // One more GET, a year on: the write units of day one.
  nowMs += 3600 * 1000;
  writeUnits.length = 0;
  expect(await get('transaction', sub)).toBe(200);
  expect(writeUnits).toEqual(dayOne);
}, 120_000);

test("a slot holding an older window's count is started afresh, never counted", async () => {
  const sub = 'slot-reuse-sub';
  nowMs = (YEAR_START + 400 * DAY) * 1000;
  // The budget met in one window ...
  for (let i = 0; i < 60; i += 1) expect(await get('customer', sub)).toBe(200);
  expect(await get('customer', sub)).toBe(429);
  // ... does not carry over to the window that uses the same slot again, nor to the next.
  nowMs += COUNTER_SLOTS * WINDOW * 1000;
  expect(await get('customer', sub)).toBe(200);
  nowMs += WINDOW * 1000;
  expect(await get('customer', sub)).toBe(200);
});
