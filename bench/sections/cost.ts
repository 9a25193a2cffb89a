/**
 * 5. DynamoDB cost per GET: requests counted by a proxy between the handler and DynamoDB Local,
 * and whether a GET's requests overlap (SPEC 6.1: one round trip, the record's GetItem and the
 * access-state UpdateItem sent together); the GetItem and the UpdateItem the handler sent, sent
 * again with ReturnConsumedCapacity (and the reference's Query).
 */
import {
  DynamoDBClient,
  GetItemCommand,
  QueryCommand,
  UpdateItemCommand,
  type GetItemCommandInput,
  type UpdateItemCommandInput,
} from '@aws-sdk/client-dynamodb';
import type { Case, Spec } from '../children/invoke.ts';
import { CASES } from '../cases.ts';
import { log, TABLE } from '../config.ts';
import { startCountingProxy, type CountingProxy, type Exchange } from '../counting-proxy.ts';
import { lambdaEnv } from '../lambda-env.ts';
import { invoke } from '../processes.ts';
import type { Results } from '../results.ts';
import type { BenchRun } from './bench-run.ts';

type Cost = NonNullable<Results['cost']>;

/** The requests of one GET as SPEC 6.1 has it: the GetItem and the access-state UpdateItem. */
const REQUESTS_PER_GET = 2;
/**
 * How long the proxy holds an answer waiting for the rest of its GET's requests: far longer than
 * two requests sent together are apart, even on a busy machine (this section does not time).
 * report/cost.ts states it.
 */
const GATHER_MS = 250;

/** What the GetItem and the UpdateItem consumed, asked again with ReturnConsumedCapacity. */
async function consumed(
  raw: DynamoDBClient,
  sent: { get: Record<string, unknown>; update: Record<string, unknown> | undefined },
  c: Case,
) {
  const measured = await raw.send(
    new GetItemCommand({
      ...(sent.get as unknown as GetItemCommandInput),
      ReturnConsumedCapacity: 'TOTAL',
    }),
  );
  // One more read counted on the bench caller's access state: far below the budget.
  const update = sent.update
    ? await raw.send(
        new UpdateItemCommand({
          ...(sent.update as unknown as UpdateItemCommandInput),
          ReturnConsumedCapacity: 'TOTAL',
        }),
      )
    : undefined;
  const reference = await raw.send(
    new QueryCommand({
      TableName: TABLE,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': 'pk' },
      ExpressionAttributeValues: { ':pk': { S: c.pk } },
      ReturnConsumedCapacity: 'TOTAL',
    }),
  );
  return { measured, update, reference };
}

/**
 * GETs whose requests overlapped: the requests in order of arrival, taken `perGet` at a time (the
 * handler is invoked one GET after another), overlapping when each arrived before the answer to
 * the one before it was handed back. Undefined when the requests do not split into whole GETs.
 */
function overlapped(exchanges: Exchange[], gets: number): number | undefined {
  if (gets === 0 || exchanges.length % gets !== 0) return undefined;
  const perGet = exchanges.length / gets;
  const sorted = [...exchanges].sort((a, b) => a.arrivedAt - b.arrivedAt);
  let n = 0;
  for (let g = 0; g < gets; g += 1) {
    const get = sorted.slice(g * perGet, (g + 1) * perGet);
    if (get.every((e, k) => k === 0 || e.arrivedAt < get[k - 1]!.answeredAt)) n += 1;
  }
  return n;
}

async function costOf(run: BenchRun, proxy: CountingProxy, raw: DynamoDBClient, c: Case) {
  const route = c.pk.startsWith('TXN#') ? 'Transactions' : 'Customers';
  proxy.reset();
  const spec: Spec = {
    mode: 'repeat',
    bundle: run.bundle(route).file,
    cases: [c],
    times: run.config.repeat,
  };
  const env = lambdaEnv({ DYNAMODB_ENDPOINT: proxy.endpoint });
  type Repeat = Record<string, { times: number; bytes: number }>;
  const repeat = (await invoke<Repeat>(run.invoker, spec, env))[c.name]!;
  const counts = proxy.counts();
  const exchanges = proxy.exchanges();
  const get = proxy.lastBody('GetItem');
  if (!get) throw new Error(`no GetItem seen for ${c.name}`);
  const update = proxy.lastBody('UpdateItem');
  const { measured, update: updated, reference } = await consumed(raw, { get, update }, c);
  return {
    gets: repeat.times,
    requests: Object.values(counts).reduce((a, b) => a + b, 0),
    operations: counts,
    overlappedGets: overlapped(exchanges, repeat.times) ?? Number.NaN,
    consistentRead: get.ConsistentRead === true,
    items: measured.Item ? 1 : 0,
    capacityUnits: measured.ConsumedCapacity?.CapacityUnits ?? Number.NaN,
    writeCapacityUnits: updated?.ConsumedCapacity?.CapacityUnits ?? Number.NaN,
    referenceCapacityUnits: reference.ConsumedCapacity?.CapacityUnits ?? Number.NaN,
    responseBytes: repeat.bytes,
  };
}

export async function measureCost(run: BenchRun, dynamoDbEndpoint: string): Promise<Cost> {
  log('DynamoDB cost per GET: requests counted by a proxy, capacity by ReturnConsumedCapacity');
  // Answers held until a GET's requests have all arrived: requests sent together overlap
  // whatever the machine's load; a request sent only after an answer never does.
  const proxy = await startCountingProxy(dynamoDbEndpoint, {
    count: REQUESTS_PER_GET,
    timeoutMs: GATHER_MS,
  });
  run.processes.onCleanup(() => proxy.stop());
  const raw = new DynamoDBClient({
    region: 'us-east-1',
    endpoint: dynamoDbEndpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  run.processes.onCleanup(() => raw.destroy());
  const out: Cost = {};
  for (const c of Object.values(CASES)) out[c.name] = await costOf(run, proxy, raw, c);
  return out;
}
