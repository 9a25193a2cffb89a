/**
 * 5. DynamoDB cost per GET: requests counted by a proxy between the handler and DynamoDB Local;
 * the Query the handler sent, sent again with ReturnConsumedCapacity (and the reference's).
 */
import { DynamoDBClient, QueryCommand, type QueryCommandInput } from '@aws-sdk/client-dynamodb';
import type { Case, Spec } from '../children/invoke';
import { CASES } from '../cases';
import { log, TABLE } from '../config';
import { startCountingProxy, type CountingProxy } from '../counting-proxy';
import { lambdaEnv } from '../lambda-env';
import { invoke } from '../processes';
import type { Results } from '../results';
import type { BenchRun } from './bench-run';

type Cost = NonNullable<Results['cost']>;

/** What the Query consumed, asked again with ReturnConsumedCapacity. */
async function consumed(raw: DynamoDBClient, sent: Record<string, unknown>, c: Case) {
  const measured = await raw.send(
    new QueryCommand({
      ...(sent as unknown as QueryCommandInput),
      ReturnConsumedCapacity: 'TOTAL',
    }),
  );
  const reference = await raw.send(
    new QueryCommand({
      TableName: TABLE,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': 'pk' },
      ExpressionAttributeValues: { ':pk': { S: c.pk } },
      ReturnConsumedCapacity: 'TOTAL',
    }),
  );
  return { measured, reference };
}

async function costOf(run: BenchRun, proxy: CountingProxy, raw: DynamoDBClient, c: Case) {
  const route = c.pk.startsWith('TXN#') ? 'GetTransaction' : 'GetCustomer';
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
  const sent = proxy.lastBody('Query');
  if (!sent) throw new Error(`no Query seen for ${c.name}`);
  const { measured, reference } = await consumed(raw, sent, c);
  return {
    gets: repeat.times,
    requests: Object.values(counts).reduce((a, b) => a + b, 0),
    operations: counts,
    consistentRead: sent.ConsistentRead === true,
    items: measured.Count ?? 0,
    capacityUnits: measured.ConsumedCapacity?.CapacityUnits ?? Number.NaN,
    referenceCapacityUnits: reference.ConsumedCapacity?.CapacityUnits ?? Number.NaN,
    responseBytes: repeat.bytes,
  };
}

export async function measureCost(run: BenchRun, dynamoDbEndpoint: string): Promise<Cost> {
  log('DynamoDB cost per GET: requests counted by a proxy, capacity by ReturnConsumedCapacity');
  const proxy = await startCountingProxy(dynamoDbEndpoint);
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
