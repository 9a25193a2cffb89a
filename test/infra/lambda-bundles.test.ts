/**
 * The Lambda bundles as deployed, not only the sources: built from BUNDLING exactly as `cdk synth`
 * builds them (functions.test.ts checks the two are byte for byte the same), each run in a fresh
 * Node.js process with only what Lambda gives a function: its variables and credentials in the
 * environment, no profile, no home directory with AWS files.
 * - the SDK's default credential chain is not in them (esbuild's metafile), the stock build has it;
 * - a GET through each bundle against DynamoDB Local, its file URL signed with those credentials;
 * - the bundle's DynamoDB client signs a request byte for byte as the same function bundled with
 *   the stock SDK (its default credential chain) does;
 * - no credentials: init fails with a message that says what is missing, and
 *   `npm run stack-trace` maps that failure's stack to the source line that threw.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build, type Metafile } from 'esbuild';
import { mapStackTrace, rebuild } from '../../bin/stack-trace';
import { createPresigner } from '../../functions/shared/presigner';
import { importFile } from '../../import/importer';
import { BUNDLING } from '../../lib/api-function';
import { esbuildOptions } from '../../lib/esbuild-options';
import { routes } from '../../lib/routes';
import { PROJECT_ROOT } from '../../lib/project-root';
import { customer, line, transaction } from '../fixtures';
import { startTestTable } from '../support/dynamodb';
import { apiEvent } from '../support/events';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'lambda-bundles-'));
/** An empty home: no ~/.aws for a default chain to find. */
const home = mkdtempSync(join(tmpdir(), 'lambda-home-'));
const FIXED_CLOCK = '2026-01-02T03:04:05Z';
const CREDENTIALS = {
  AWS_ACCESS_KEY_ID: 'ASIABUNDLETEST',
  AWS_SECRET_ACCESS_KEY: 'bundle-test-secret',
  AWS_SESSION_TOKEN: 'bundle-test-session',
};

/** Records with a file each, so that each GET presigns a URL. */
const TRANSACTION = transaction();
const CUSTOMER = customer({ id_photo: 'id-photos/c-7.png' });

const bundles = new Map<string, { file: string; metafile: Metafile }>();
/** GetTransaction built the stock way: BUNDLING without the alias, the SDK's default chain in. */
const STOCK_BUNDLE = 'GetTransaction (stock)';
const { esbuildArgs: _alias, ...STOCK } = BUNDLING;
let table: Awaited<ReturnType<typeof startTestTable>>;

beforeAll(async () => {
  const [started] = await Promise.all([
    startTestTable(),
    ...[
      ...routes.map((r) => ({ name: r.id, entry: r.entry, bundling: BUNDLING })),
      { name: STOCK_BUNDLE, entry: routes[0]!.entry, bundling: STOCK },
    ].map(async ({ name, entry, bundling }) => {
      const file = join(dir, name.replace(/\W+/g, '-'), 'index.mjs');
      const { metafile } = await build({
        ...esbuildOptions(bundling),
        entryPoints: [entry],
        outfile: file,
        metafile: true,
      });
      bundles.set(name, { file, metafile: metafile! });
    }),
  ]);
  table = started;
  const seed = join(dir, 'seed.jsonl');
  writeFileSync(
    seed,
    [line('transaction', TRANSACTION), line('customer', CUSTOMER)].join('\n') + '\n',
  );
  await importFile(seed, {
    client: table.client,
    tableName: table.tableName,
    displayTimeZone: 'UTC',
  });
}, 90_000);
afterAll(async () => {
  await table?.stop();
  rmSync(dir, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

/** Lambda's environment for a function, and nothing of this machine's. */
function lambdaEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    LANG: 'C.UTF-8',
    TZ: ':UTC',
    AWS_REGION: 'us-east-1',
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_LAMBDA_FUNCTION_NAME: 'bundle-test',
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
    TABLE_NAME: table.tableName,
    BUCKET_NAME: 'files',
    FIXED_CLOCK,
    ...extra,
  };
}

const HANDLER_CHILD = `
const { handler } = await import(process.argv[1]);
const result = await handler(JSON.parse(process.argv[2]), {
  awsRequestId: 'bundle-test',
  getRemainingTimeInMillis: () => 10000,
});
process.stdout.write('RESULT ' + JSON.stringify(result) + '\\n');
`;

/** Invokes a bundle's handler once in a fresh process (clock fixed), as Lambda loads it. */
async function invoke(route: string, event: unknown, env: NodeJS.ProcessEnv) {
  const { file } = bundles.get(route)!;
  const { stdout } = await run(
    process.execPath,
    [
      '--import',
      join(PROJECT_ROOT, 'test/support/fixed-clock.ts'),
      '--input-type=module',
      '-e',
      HANDLER_CHILD,
      file,
      JSON.stringify(event),
    ],
    { env, cwd: dir, timeout: 30_000 },
  );
  const result = stdout.split('\n').find((l) => l.startsWith('RESULT '));
  if (!result) throw new Error(`no result from ${route}: ${stdout}`);
  return JSON.parse(result.slice(7)) as { statusCode: number; body: string };
}

const EVENTS: Record<string, unknown> = {
  GetTransaction: apiEvent('GET /transactions/{transaction_id}', { transaction_id: '1' }),
  GetCustomer: apiEvent('GET /customers/{customer_id}', { customer_id: '7' }),
};

describe('what is in the bundles', () => {
  const CHAIN =
    /node_modules\/@aws-sdk\/(credential-provider-(node|ini|sso|process|web-identity|login)|nested-clients|token-providers)\/|node_modules\/@smithy\/credential-provider-imds\//;

  test.each(routes.map((r) => r.id))(
    '%s: the default credential chain is left out, the Lambda credentials are in',
    (route) => {
      const inputs = Object.keys(bundles.get(route)!.metafile.inputs);
      expect(inputs.filter((i) => CHAIN.test(i))).toEqual([]);
      expect(inputs).toContain('functions/shared/lambda-credentials.ts');
      // The container-endpoint provider stays: Lambda may serve credentials that way.
      expect(inputs.some((i) => i.includes('@aws-sdk/credential-provider-http/'))).toBe(true);
    },
  );

  test('the same build without the alias has the chain (the check above can fail)', () => {
    const inputs = Object.keys(bundles.get(STOCK_BUNDLE)!.metafile.inputs);
    expect(inputs.filter((i) => CHAIN.test(i)).length).toBeGreaterThan(5);
  });
});

describe('a GET through each bundle, credentials only in the environment', () => {
  test.each(routes.map((r) => r.id))(
    '%s answers 200 from DynamoDB Local with its file URL signed by those credentials',
    async (route) => {
      const env = lambdaEnv({
        ...CREDENTIALS,
        DYNAMODB_ENDPOINT: table.endpoint,
        S3_ENDPOINT: 'http://127.0.0.1:4569',
      });
      const result = await invoke(route, EVENTS[route], env);
      expect(result.statusCode).toBe(200);
      const { message, data } = JSON.parse(result.body) as {
        message: string;
        data: Record<string, unknown>;
      };
      expect(message).toBe('Ok');
      expect(data.id).toBe(route === 'GetTransaction' ? 1 : 7);
      const field = route === 'GetTransaction' ? 'signature' : 'id_photo';
      const url = new URL(data[field] as string);
      expect(url.searchParams.get('X-Amz-Credential')).toMatch(/^ASIABUNDLETEST\//);
      expect(url.searchParams.get('X-Amz-Security-Token')).toBe('bundle-test-session');
      // The very URL the source presigner makes with the same credentials at the same instant.
      const saved = { ...process.env };
      Object.assign(process.env, CREDENTIALS);
      try {
        const presign = createPresigner({
          region: 'us-east-1',
          bucketName: 'files',
          ttlSeconds: 300,
          endpoint: 'http://127.0.0.1:4569',
          now: () => new Date(FIXED_CLOCK),
        });
        const key = (route === 'GetTransaction' ? TRANSACTION : CUSTOMER)[field] as string;
        expect(data[field]).toBe(await presign(key));
      } finally {
        process.env = saved;
      }
    },
  );
});

describe('signing', () => {
  let server: Server;
  let endpoint: string;
  const seen: { url: string; headers: IncomingHttpHeaders; body: string }[] = [];
  beforeAll(async () => {
    // Answers every DynamoDB Query with no items, and keeps what was sent.
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen.push({ url: req.url ?? '', headers: req.headers, body });
        res.setHeader('content-type', 'application/x-amz-json-1.0');
        res.setHeader('x-amzn-requestid', 'capture');
        res.end('{"Count":0,"Items":[],"ScannedCount":0}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('the bundle signs its Query byte for byte as the same function with the stock SDK chain does', async () => {
    const env = lambdaEnv({ ...CREDENTIALS, DYNAMODB_ENDPOINT: endpoint });
    const answer = await invoke('GetTransaction', EVENTS.GetTransaction, env);
    expect(answer.statusCode).toBe(404); // the capture server holds nothing
    const ours = seen.pop()!;
    // The same function bundled the stock way, its SDK default chain finding the same
    // environment, sends the same GET's Query at the same fixed instant.
    await invoke(STOCK_BUNDLE, EVENTS.GetTransaction, env);
    const stock = seen.pop()!;
    expect(ours.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=ASIABUNDLETEST\/20260102\/us-east-1\/dynamodb\/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$/,
    );
    expect(ours.headers['x-amz-security-token']).toBe('bundle-test-session');
    expect(ours).toEqual(stock);
  });
});

describe('no credentials in the environment', () => {
  test('init fails with a message naming what is missing, and the stack maps to the source', async () => {
    const env = lambdaEnv({ DYNAMODB_ENDPOINT: table.endpoint });
    const failure = await invoke('GetTransaction', EVENTS.GetTransaction, env).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).not.toBe(0);
    expect(failure?.stderr).toContain(
      'MissingCredentialsError]: No AWS credentials in the environment: this function reads AWS_ACCESS_KEY_ID',
    );
    // Frames point into the minified bundle; the rebuilt map puts them back on source lines.
    const trace = failure!.stderr.slice(failure!.stderr.indexOf('\n    at '));
    expect(trace).toMatch(/index\.mjs:\d+:\d+/);
    const { code, map } = await rebuild('GetTransaction');
    expect(code).toBe(readFileSync(bundles.get('GetTransaction')!.file, 'utf8'));
    const mapped = mapStackTrace(trace, map).split('\n')[1];
    const source = readFileSync(
      join(PROJECT_ROOT, 'functions/shared/lambda-credentials.ts'),
      'utf8',
    );
    const throwLine =
      source.split('\n').findLastIndex((l) => l.includes('throw new MissingCredentialsError')) + 1;
    expect(mapped).toContain(`functions/shared/lambda-credentials.ts:${throwLine}:`);
  });
});
