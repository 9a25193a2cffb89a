/**
 * Where a warm GET's own time goes: the handler with DynamoDB stubbed out (the stub hands over
 * the items as the low-level client's Query does, in DynamoDB's wire form), and each of its steps
 * on its own, in µs per call on the source modules (run with tsx). Prints one `BENCH {json}` line.
 */
import { buildLambdaContext } from '../../local/api-event';
import { benchEvent } from '../cases';

Object.assign(process.env, {
  TABLE_NAME: 'bench',
  BUCKET_NAME: 'bench-files',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
  AWS_SESSION_TOKEN: 'local-session',
  DISPLAY_TIME_ZONE: 'UTC',
});
const { marshall, unmarshall } = await import('@aws-sdk/util-dynamodb');
const { handler } = await import('../../functions/get-transaction');
const { runtime } = await import('../../functions/shared/runtime');
const { getCollection, itemsOf } = await import('../../functions/shared/table');
const { fromAttributes } = await import('../../functions/shared/attribute-values');
const { newVersion } = await import('../../functions/shared/keys');
const { toApiTransaction } = await import('../../functions/shared/mapping');
const { stringifyExactJson } = await import('../../functions/shared/json');
const { log } = await import('../../functions/shared/logger');
const { createLineParser } = await import('../../import/records');
const { line, transactionRecord } = await import('../generate');

async function time(fn: () => unknown, runs = 20_000): Promise<number> {
  for (let i = 0; i < runs / 5; i += 1) await fn();
  const started = performance.now();
  for (let i = 0; i < runs; i += 1) await fn();
  return ((performance.now() - started) * 1000) / runs;
}

const event = benchEvent('GET /transactions/{transaction_id}', { transaction_id: '1' });
const context = buildLambdaContext({
  awsRequestId: 'bench',
  getRemainingTimeInMillis: () => 10_000,
});
const client = runtime.client as unknown as { send: () => Promise<unknown> };

const out: Record<string, Record<string, number>> = {};
for (const lines of [1, 50]) {
  const parsed = createLineParser(runtime.times)(line('transaction', transactionRecord(1, lines)));
  if (!parsed.ok || parsed.kind !== 'put') throw new Error('the generated record is invalid');
  const stored = itemsOf('transaction', parsed.record, newVersion());
  // In sort-key order, as a Query returns them: LINE#... before TXN.
  const wire = [...stored.children, stored.head].map((item) => marshall(item));
  const keys = new Set(['pk', 'sk']);
  const items = () => wire.map((w) => fromAttributes(w, keys));
  client.send = async () => ({ Items: wire });
  // Read through the stub as the handler reads it.
  const { head, children } = await getCollection(runtime.client, 'bench', 'transaction', 1n);
  const collection = { head: head!, children };
  const record = await toApiTransaction(collection, runtime);
  out[`transaction (${lines} line${lines > 1 ? 's' : ''})`] = {
    'handler, DynamoDB stubbed (the items in wire form, as the Query answers)': await time(() =>
      handler(event, context),
    ),
    'of which: the items from wire form, integers as bigint': await time(items),
    'unmarshall as the reference does (numbers)': await time(() => wire.map((w) => unmarshall(w))),
    'validate the stored record and map it (no URL)': await time(() =>
      toApiTransaction(collection, { ...runtime, presign: async () => null }),
    ),
    'one presigned URL': await time(() => runtime.presign('signatures/t-1.png')),
    'exact JSON of the envelope': await time(() =>
      stringifyExactJson({ message: 'Ok', data: record }),
    ),
    'the log line (written to /dev/null)': await time(() =>
      log({
        level: 'INFO',
        message: 'request',
        requestId: 'bench',
        apiRequestId: 'bench',
        route: 'x',
        status: 200,
        latencyMs: 1,
      }),
    ),
  };
}
process.stderr.write(`BENCH ${JSON.stringify(out)}\n`);
process.exit(0);
