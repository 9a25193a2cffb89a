/**
 * 5b. The access state over the years (docs/performance.md): one user reads as a diligent member
 * of staff does for a year (bench/sporadic-reads.ts) against DynamoDB Local, and each
 * read-budget store's access-state requests are counted with the write and read units DynamoDB
 * reports, what stays stored for the user, and the time of a GET's access requests at the start
 * and at the end of the year. The cost section runs the production gate
 * (functions/shared/access.ts). `npx node bench/access-state-candidates.ts` also runs the
 * candidates that were not chosen, written out as they would be, with the same budget and window.
 */
import {
  DynamoDBClient,
  GetItemCommand,
  QueryCommand,
  UpdateItemCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import { COUNTER_SLOTS, COUNT_SCALE, accessStateWireKey } from '../../core/access-state.ts';
import { CUSTOMER, TRANSACTION } from '../../core/entities.ts';
import { windowStart } from '../../core/read-budgets.ts';
import { createAccessGate } from '../../functions/shared/access.ts';
import { sporadicYear } from '../sporadic-reads.ts';
import { TABLE } from '../config.ts';

const WINDOW = 300;
const BUDGET = 300;
/** Monday 2026-01-05, 00:00 UTC. */
const START = 1_767_571_200;

interface Tally {
  requests: number;
  /** Requests that had to wait for an answer before them. */
  sequential: number;
  writeUnits: number;
  readUnits: number;
}

type Read = (sub: string, seconds: number, entity: 'transaction' | 'customer') => Promise<void>;

const fresh = (): Tally => ({ requests: 0, sequential: 0, writeUnits: 0, readUnits: 0 });
let tally = fresh();

/** A client that counts every request and the units DynamoDB says it consumed. */
function countingClient(endpoint: string): DynamoDBClient {
  const client = new DynamoDBClient({
    region: 'us-east-1',
    endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  client.middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as { UpdateExpression?: string };
      Object.assign(input, { ReturnConsumedCapacity: 'TOTAL' });
      tally.requests += 1;
      const result = await next(args);
      const units =
        (result.output as { ConsumedCapacity?: { CapacityUnits?: number } }).ConsumedCapacity
          ?.CapacityUnits ?? 0;
      if (input.UpdateExpression) tally.writeUnits += units;
      else tally.readUnits += units;
      return result;
    },
    { step: 'initialize', name: 'countUnits' },
  );
  return client;
}

const n = (value: bigint | number): AttributeValue => ({ N: String(value) });
const refusedCondition = (error: unknown) =>
  (error as { name?: string }).name === 'ConditionalCheckFailedException';
const ignoreRefusal = (error: unknown) => {
  if (!refusedCondition(error)) throw error;
};

/** Until 2026-11: a counter per window, the previous window's removed. */
function perWindowAttributes(client: DynamoDBClient): Read {
  return async (sub, seconds, entity) => {
    const w = windowStart(seconds, WINDOW);
    await client
      .send(
        new UpdateItemCommand({
          TableName: TABLE,
          Key: accessStateWireKey(sub),
          UpdateExpression: 'ADD #count :one REMOVE #previous',
          ConditionExpression: 'attribute_not_exists(#count) OR #count < :budget',
          ExpressionAttributeNames: {
            '#count': `count:${entity}:${w}`,
            '#previous': `count:${entity}:${w - WINDOW}`,
          },
          ExpressionAttributeValues: { ':one': n(1), ':budget': n(BUDGET) },
          ReturnValues: 'ALL_NEW',
        }),
      )
      .catch(ignoreRefusal);
  };
}

/**
 * Per-window items that expire (TTL), and the "not before" instants read beside them. DynamoDB
 * Local never expires items; in AWS they go within days of their TTL.
 */
function perWindowItems(client: DynamoDBClient): Read {
  return async (sub, seconds, entity) => {
    const w = windowStart(seconds, WINDOW);
    const key = accessStateWireKey(sub);
    await Promise.all([
      client
        .send(
          new UpdateItemCommand({
            TableName: TABLE,
            Key: { ...key, sk: { S: `COUNT#${entity}#${w}` } },
            UpdateExpression: 'ADD #n :one SET #ttl = :ttl',
            ConditionExpression: 'attribute_not_exists(#n) OR #n < :budget',
            ExpressionAttributeNames: { '#n': 'n', '#ttl': 'expiresAt' },
            ExpressionAttributeValues: {
              ':one': n(1),
              ':budget': n(BUDGET),
              ':ttl': n(w + 2 * WINDOW),
            },
          }),
        )
        .catch(ignoreRefusal),
      client.send(new GetItemCommand({ TableName: TABLE, Key: key })),
    ]);
  };
}

/** The chosen design's requests with one slot: every new window restarts the counter. */
function oneCounter(client: DynamoDBClient): Read {
  return async (sub, seconds, entity) => {
    const base = BigInt(windowStart(seconds, WINDOW)) * COUNT_SCALE;
    const send = (count: boolean) =>
      client.send(
        new UpdateItemCommand({
          TableName: TABLE,
          Key: accessStateWireKey(sub),
          UpdateExpression: count ? 'SET #c = if_not_exists(#c, :base) + :one' : 'SET #c = :first',
          ConditionExpression: count
            ? 'attribute_not_exists(#c) OR (#c >= :base AND #c < :limit)'
            : 'attribute_not_exists(#c) OR #c < :base',
          ExpressionAttributeNames: { '#c': `reads:${entity}` },
          ExpressionAttributeValues: count
            ? { ':base': n(base), ':one': n(1), ':limit': n(base + BigInt(BUDGET)) }
            : { ':base': n(base), ':first': n(base + 1n) },
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
    try {
      await send(true);
    } catch (error) {
      ignoreRefusal(error);
      tally.sequential += 1;
      await send(false);
    }
  };
}

/** The production gate (COUNTER_SLOTS slots), its clock moved to each read. */
function slots(client: DynamoDBClient): Read {
  let now = 0;
  const gate = createAccessGate(
    client,
    TABLE,
    { customers: BUDGET, transactions: BUDGET, windowSeconds: WINDOW },
    () => now,
  );
  return async (sub, seconds, entity) => {
    now = seconds * 1000;
    const before = tally.requests;
    await gate.check({ sub, issuedAt: seconds }, entity === 'customer' ? CUSTOMER : TRANSACTION);
    tally.sequential += tally.requests - before - 1;
  };
}

/** Bytes of everything stored under the user's partition key (names and values). */
async function storedBytes(client: DynamoDBClient, sub: string): Promise<number> {
  const { Items } = await client.send(
    new QueryCommand({
      TableName: TABLE,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': accessStateWireKey(sub).pk! },
      ConsistentRead: true,
    }),
  );
  return (Items ?? [])
    .flatMap((item) => Object.entries(item))
    .reduce((size, [name, value]) => size + name.length + (value.N ?? value.S ?? '').length, 0);
}

export interface HistoryRow {
  candidate: string;
  /** Mean access-state requests per GET over the year, and those that waited for another. */
  requestsPerGet: number;
  secondRoundTripsPerGet: number;
  /** Units of one GET's access requests: a new user's, and a user's after the year. */
  writeUnits: { newUser: number; afterYear: number };
  readUnits: { newUser: number; afterYear: number };
  /** Bytes stored under the user's partition key after the year. */
  storedBytes: number;
  /** Mean ms of a GET's access requests, first and last 200 of the year. */
  ms: { first: number; last: number };
}

export interface History {
  gets: number;
  windowSeconds: number;
  rows: HistoryRow[];
}

export const CHOSEN = `${COUNTER_SLOTS} slots carrying their window (chosen)`;

const CANDIDATES: Record<string, (client: DynamoDBClient) => Read> = {
  'per-window attributes (before)': perWindowAttributes,
  'per-window items + TTL, GetItem beside': perWindowItems,
  'one counter carrying its window': oneCounter,
  [CHOSEN]: slots,
};

/** A year of one user's reads for each named candidate (all of them unless named). */
export async function measureAccessHistory(
  endpoint: string,
  names: readonly string[] = Object.keys(CANDIDATES),
): Promise<History> {
  const client = countingClient(endpoint);
  const year = sporadicYear(START, WINDOW, COUNTER_SLOTS);
  const rows: HistoryRow[] = [];
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  try {
    for (const name of names) {
      const read = CANDIDATES[name]!(client);
      const sub = `history-${name.replace(/\W+/g, '-')}`;
      const times: number[] = [];
      tally = fresh();
      for (const { seconds, entity } of year) {
        const t = performance.now();
        await read(sub, seconds, entity);
        times.push(performance.now() - t);
      }
      const yearTally = tally;
      tally = fresh();
      await read(sub, year.at(-1)!.seconds + 3600, 'transaction');
      const afterYear = tally;
      tally = fresh();
      await read(`${sub}-new`, START, 'transaction');
      const newUser = tally;
      rows.push({
        candidate: name,
        requestsPerGet: yearTally.requests / year.length,
        secondRoundTripsPerGet: yearTally.sequential / year.length,
        writeUnits: { newUser: newUser.writeUnits, afterYear: afterYear.writeUnits },
        readUnits: { newUser: newUser.readUnits, afterYear: afterYear.readUnits },
        storedBytes: await storedBytes(client, sub),
        ms: { first: mean(times.slice(0, 200)), last: mean(times.slice(-200)) },
      });
    }
  } finally {
    client.destroy();
  }
  return { gets: year.length, windowSeconds: WINDOW, rows };
}
