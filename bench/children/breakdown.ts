/**
 * Where a warm GET's own time goes: the handler with DynamoDB stubbed out (the stub hands over
 * the item as the low-level client's GetItem does, in DynamoDB's wire form, and answers the
 * access-state UpdateItem with an empty item), and each of its steps
 * on its own, in µs per call on the source modules (run as Node.js strips their types). Prints one `BENCH {json}` line.
 */
import { buildLambdaContext } from '../../local/gateway/api-event.ts';
import { BENCH_IAT, BENCH_SUB, benchEvent } from '../cases.ts';

Object.assign(process.env, {
  TABLE_NAME: 'bench',
  BUCKET_NAME: 'bench-files',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
  AWS_SESSION_TOKEN: 'local-session',
  DISPLAY_TIME_ZONE: 'UTC',
  CURSOR_KEY: 'bench0cursor0key0'.repeat(4).slice(0, 64),
});
const { marshall, unmarshall } = await import('@aws-sdk/util-dynamodb');
const { createHandler } = await import('../../functions/transactions.ts');
const { createApiDeps } = await import('../../functions/shared/api-deps.ts');
const { loadConfig } = await import('../../functions/shared/config.ts');
const { createTableClient } = await import('../../functions/sdk/table-client.ts');
const { TRANSACTION } = await import('../../core/entities.ts');
const { itemOf } = await import('../../core/layout.ts');
const { startVersion } = await import('../../core/import-version.ts');
const { fromAttributes } = await import('../../functions/sdk/attribute-values.ts');
const { toApiRecord } = await import('../../functions/shared/mapping.ts');
const { stringifyExactJson } = await import('../../core/json.ts');
const { log } = await import('../../functions/shared/logger.ts');
const { createLineParser } = await import('../../import/records.ts');
const { line, transactionRecord } = await import('../generate.ts');

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
const config = loadConfig(process.env);
const client = createTableClient({ region: config.region });
const deps = createApiDeps(config, { client });
const handler = createHandler(deps);
const stub = client as unknown as { send: (command: { input: object }) => Promise<unknown> };
const caller = { sub: BENCH_SUB, issuedAt: Number(BENCH_IAT) };

const out: Record<string, Record<string, number>> = {};
for (const lines of [1, 50]) {
  const parsed = createLineParser(deps.times)(line('transaction', transactionRecord(1, lines)));
  if (!parsed.ok || parsed.kind !== 'put') throw new Error('the generated record is invalid');
  const wire = marshall(itemOf(TRANSACTION, parsed.record, startVersion()));
  const keys = new Set(['pk', 'sk', 'v']);
  const items = () => fromAttributes(wire, keys);
  // The access-state UpdateItem answered as for a caller with no "not before" instants.
  stub.send = async (command) =>
    'UpdateExpression' in command.input ? { Attributes: {} } : { Item: wire };
  // The handler answers 200 through the stub (claims complete, access state empty), or nothing
  // below measures a GET.
  const answer = await handler(event, context);
  if (answer.statusCode !== 200)
    throw new Error(`the stubbed handler answered ${answer.statusCode}: ${answer.body}`);
  // Read through the stub as the handler reads it.
  const stored = (await deps.store.readRecord(TRANSACTION, 1n))!;
  const record = await toApiRecord(TRANSACTION, stored, deps);
  out[`transaction (${lines} line${lines > 1 ? 's' : ''})`] = {
    'handler, DynamoDB stubbed (the GetItem: the item in wire form; the UpdateItem: an empty item)':
      await time(() => handler(event, context)),
    'of which: the item from wire form, integers as bigint': await time(items),
    'of which: the access-state request (stubbed)': await time(() =>
      deps.access.check(caller, TRANSACTION),
    ),
    'unmarshall as the reference does (numbers)': await time(() => unmarshall(wire)),
    'validate the stored record and map it (no URL)': await time(() =>
      toApiRecord(TRANSACTION, stored, { ...deps, presign: async () => null }),
    ),
    'one presigned URL': await time(() => deps.presign('signatures/t-1.png')),
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
