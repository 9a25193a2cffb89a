/**
 * The Lambda bundles as deployed, not only the sources: built from BUNDLING exactly as `cdk synth`
 * builds them (checks/functions.ts checks the two are byte for byte the same), each run in a fresh
 * Node.js process with only what Lambda gives a function: its variables and credentials in the
 * environment, no profile, no home directory with AWS files.
 * - the SDK's default credential chain is not in them (esbuild's metafile), the stock build has it;
 * - Node.js built-ins come through functions/sdk/builtins/, not ES module facades;
 * - a GET through each bundle against DynamoDB Local, its file URL signed with those credentials;
 * - the bundle's DynamoDB client signs a request byte for byte as the same function bundled with
 *   the stock SDK (its default credential chain) does;
 * - no credentials: init fails with a message that says what is missing, and
 *   `npm run stack-trace` maps that failure's stack to the source line that threw;
 * - every error class, made to happen in the bundle, carries its real name (errorName in logs).
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { mapStackTrace, rebuild } from '../../commands/stack-trace/source-map.ts';
import { BUNDLING } from '../../lib/project-function.ts';
import { esbuildOptions } from '../../lib/esbuild-options.ts';
import { createPresigner } from '../../functions/shared/presigner.ts';
import { functionList } from '../../core/routes.ts';
import { PROJECT_ROOT } from '../../core/project-root.ts';
import {
  FIXED_CLOCK,
  CREDENTIALS,
  TRANSACTION,
  CUSTOMER,
  bundles,
  STOCK_BUNDLE,
  table,
  lambdaEnv,
  invoke,
  EVENTS,
  dir,
  run,
} from '../support/lambda-bundles.ts';
import { PutItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { apiEvent, testClaims } from '../support/events.ts';
import { COUNT_SCALE, accessStateKey, counterSlot, readCounter } from '../../core/access-state.ts';
import { windowStart } from '../../core/read-budgets.ts';
import { startVersion } from '../../core/import-version.ts';

/** What is in the bundles, a GET through each, how they sign, and a start without credentials. */
describe('what is in the bundles', () => {
  const CHAIN =
    /node_modules\/@aws-sdk\/(credential-provider-(node|ini|sso|process|web-identity|login)|nested-clients|token-providers)\/|node_modules\/@smithy\/credential-provider-imds\//;

  test.each(functionList.map((fn) => fn.id))(
    '%s: the default credential chain is left out, the Lambda credentials are in',
    (route) => {
      const inputs = Object.keys(bundles.get(route)!.metafile.inputs);
      expect(inputs.filter((i) => CHAIN.test(i))).toEqual([]);
      expect(inputs).toContain('functions/sdk/lambda-credentials.ts');
      // The container-endpoint provider stays: Lambda may serve credentials that way.
      expect(inputs.some((i) => i.includes('@aws-sdk/credential-provider-http/'))).toBe(true);
    },
  );

  // docs/operations/alarms.md says a trace has no DynamoDB subsegment: true while nothing instruments
  // the SDK. Adding a tracer fails here, and the docs and alarm descriptions must change with it.
  test.each(functionList.map((fn) => fn.id))(
    '%s: nothing instruments the AWS SDK for X-Ray',
    (route) => {
      const inputs = Object.keys(bundles.get(route)!.metafile.inputs);
      expect(
        inputs.filter((i) => /aws-xray-sdk|@aws-lambda-powertools\/tracer|opentelemetry/.test(i)),
      ).toEqual([]);
      const code = readFileSync(bundles.get(route)!.file, 'utf8');
      expect(code).not.toMatch(/captureAWSv3Client|AWSXRay/);
    },
  );

  /** Built-ins a bundle imports statically: each such import makes Node.js build its facade. */
  const staticBuiltins = (name: string) =>
    [...readFileSync(bundles.get(name)!.file, 'utf8').matchAll(/\bfrom ?["']node:([\w/]+)["']/g)]
      .map((m) => m[1])
      .sort();

  // functions/sdk/builtins/: the built-ins without ES module facades. Only the banner's
  // node:module (createRequire, for CommonJS dependencies) is imported statically.
  test.each(functionList.map((fn) => fn.id))(
    '%s: built-ins come through their stand-ins',
    (route) => {
      expect(staticBuiltins(route)).toEqual(['module']);
      const inputs = Object.keys(bundles.get(route)!.metafile.inputs);
      expect(inputs.filter((i) => i.startsWith('functions/sdk/builtins/')).length).toBeGreaterThan(
        5,
      );
    },
  );

  test('the stock build imports them statically (the check above can fail)', () => {
    expect(staticBuiltins(STOCK_BUNDLE)).toEqual(expect.arrayContaining(['crypto', 'fs', 'https']));
  });

  test('the same build without the alias has the chain (the check above can fail)', () => {
    const inputs = Object.keys(bundles.get(STOCK_BUNDLE)!.metafile.inputs);
    expect(inputs.filter((i) => CHAIN.test(i)).length).toBeGreaterThan(5);
  });
});

describe('a GET through each bundle, credentials only in the environment', () => {
  test.each(functionList.map((fn) => fn.id))(
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
      expect(data.id).toBe(route === 'Transactions' ? 1 : 7);
      const field = route === 'Transactions' ? 'signature' : 'id_photo';
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
        const key = (route === 'Transactions' ? TRANSACTION : CUSTOMER)[field] as string;
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
    // Answers every DynamoDB request with nothing (no item), and keeps what was sent.
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

  test('the bundle signs its GetItem and access-state request byte for byte as the same function with the stock SDK chain does', async () => {
    const env = lambdaEnv({ ...CREDENTIALS, DYNAMODB_ENDPOINT: endpoint });
    /** The requests of one GET, by operation. */
    const requestsOf = async (bundle: string) => {
      seen.length = 0;
      const answer = await invoke(bundle, EVENTS.Transactions, env);
      expect(answer.statusCode).toBe(404); // the capture server holds nothing
      return Object.fromEntries(
        seen.splice(0).map((r) => [String(r.headers['x-amz-target']), r] as const),
      );
    };
    const ours = await requestsOf('Transactions');
    expect(Object.keys(ours).sort()).toEqual([
      'DynamoDB_20120810.GetItem',
      'DynamoDB_20120810.UpdateItem',
    ]);
    // The same function bundled the stock way, its SDK default chain finding the same
    // environment, sends the same GET's requests at the same fixed instant.
    const stock = await requestsOf(STOCK_BUNDLE);
    for (const request of Object.values(ours)) {
      expect(request.headers.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=ASIABUNDLETEST\/20260102\/us-east-1\/dynamodb\/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$/,
      );
      expect(request.headers['x-amz-security-token']).toBe('bundle-test-session');
    }
    expect(ours).toEqual(stock);
  });
});

describe('no credentials in the environment', () => {
  test('init fails with a message naming what is missing, and the stack maps to the source', async () => {
    const env = lambdaEnv({ DYNAMODB_ENDPOINT: table.endpoint });
    const failure = await invoke('Transactions', EVENTS.Transactions, env).then(
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
    const { code, map } = await rebuild('Transactions', esbuildOptions(BUNDLING));
    expect(code).toBe(readFileSync(bundles.get('Transactions')!.file, 'utf8'));
    const mapped = mapStackTrace(trace, map).split('\n')[1];
    const source = readFileSync(join(PROJECT_ROOT, 'functions/sdk/lambda-credentials.ts'), 'utf8');
    const throwLine =
      source.split('\n').findLastIndex((l) => l.includes('throw new MissingCredentialsError')) + 1;
    expect(mapped).toContain(`functions/sdk/lambda-credentials.ts:${throwLine}:`);
  });
});

/** Every error class a function can throw, made to happen in the bundles: its name survives minifying. */
/**
 * Issue 17: every error class a function can throw keeps its real name in the minified bundle,
 * where esbuild renames the classes (a name taken from the class, `new.target.name`, came out as
 * "tt"). Each class is made to happen in the bundle as deployed; the child replaces the global
 * Error with a Proxy that records every instance a class extending it constructs, so what is
 * checked is the name of the very object the bundle threw, and, for those the functions log
 * (5xx), the `errorName` of the log line, or the name Lambda reports for a failed init.
 */
describe('error names in the minified bundles', () => {
  const RECORDING_CHILD = `
const seen = [];
globalThis.Error = new Proxy(Error, {
  construct(target, args, newTarget) {
    const error = Reflect.construct(target, args, newTarget);
    seen.push(error);
    return error;
  },
});
let outcome;
try {
  const { handler } = await import(process.argv[1]);
  const result = await handler(JSON.parse(process.argv[2]), {
    awsRequestId: 'bundle-test',
    getRemainingTimeInMillis: () => 10000,
  });
  outcome = { status: result.statusCode };
} catch (error) {
  // A failed init: Lambda reports it as errorType, the error's name.
  outcome = { initError: error.name };
}
const errors = seen.map((e) => ({ name: e.name, className: e.constructor.name, message: e.message }));
process.stdout.write('OUTCOME ' + JSON.stringify({ ...outcome, errors }) + '\\n');
`;

  interface Outcome {
    status?: number;
    initError?: string;
    errors: { name: string; className: string; message: string }[];
    /** The functions' own JSON log lines. */
    logs: { message?: string; status?: number; errorName?: string }[];
  }

  async function observe(route: string, event: unknown, env: NodeJS.ProcessEnv): Promise<Outcome> {
    const { stdout } = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        RECORDING_CHILD,
        bundles.get(route)!.file,
        JSON.stringify(event),
      ],
      { env, cwd: dir, timeout: 30_000 },
    );
    const lines = stdout.split('\n');
    const outcome = lines.find((l) => l.startsWith('OUTCOME '));
    if (!outcome) throw new Error(`no outcome from ${route}: ${stdout}`);
    return {
      ...(JSON.parse(outcome.slice(8)) as Omit<Outcome, 'logs'>),
      logs: lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Outcome['logs'][0]),
    };
  }

  const env = (extra: Record<string, string> = {}) =>
    lambdaEnv({ ...CREDENTIALS, DYNAMODB_ENDPOINT: table.endpoint, ...extra });
  const txn = (id: string, claims?: Record<string, string>) =>
    apiEvent('GET /transactions/{transaction_id}', { transaction_id: id }, claims);

  const CORRUPT_ID = 160;
  const OVER_BUDGET_SUB = 'over-budget-sub';
  const HOUR = 3600;
  /** One way to make each error class happen, and what the caller or Lambda sees of it. */
  const SCENARIOS: {
    className: string;
    route: string;
    event: () => unknown;
    env: () => NodeJS.ProcessEnv;
    message: string | RegExp;
    status?: number;
    /** Thrown at init: the function never answers. */
    init?: true;
  }[] = [
    {
      className: 'BadRequestError',
      route: 'Transactions',
      event: () => txn('x1'),
      env,
      message: 'Invalid transaction id',
      status: 400,
    },
    {
      className: 'UnauthorizedError',
      route: 'Transactions',
      event: () => txn('1', { token_use: 'id' }),
      env,
      message: 'Unauthorized',
      status: 401,
    },
    {
      className: 'ForbiddenError',
      route: 'Customers',
      event: () =>
        apiEvent(
          'GET /customers/{customer_id}',
          { customer_id: '7' },
          testClaims({ 'cognito:groups': '[]' }),
        ),
      env,
      message: 'Forbidden',
      status: 403,
    },
    {
      className: 'NotFoundError',
      route: 'Transactions',
      event: () => txn('424242'),
      env,
      message: 'Transaction not found',
      status: 404,
    },
    {
      className: 'ServiceUnavailableError',
      route: 'Transactions',
      event: () => txn('1'),
      // Nothing listens on port 1: DynamoDB unreachable, after the SDK's retries a 503.
      env: () => env({ DYNAMODB_ENDPOINT: 'http://127.0.0.1:1' }),
      message: 'Service unavailable',
      status: 503,
    },
    {
      className: 'CorruptRecordError',
      route: 'Transactions',
      event: () => txn(String(CORRUPT_ID)),
      env,
      message: /^Stored transaction is corrupt at /,
      status: 500,
    },
    {
      className: 'TooManyRequestsError',
      route: 'Transactions',
      // The user whose counter (written below) is at the budget of 1 in this hour's window.
      event: () => txn('1', testClaims({ sub: OVER_BUDGET_SUB })),
      env: () => env({ READ_BUDGET_TRANSACTIONS: '1', READ_BUDGET_WINDOW_SECONDS: String(HOUR) }),
      message: 'Too many requests',
      status: 429,
    },
    {
      className: 'ReadBudgetError',
      route: 'Transactions',
      event: () => txn('1'),
      env: () => env({ READ_BUDGET_TRANSACTIONS: '0' }),
      message: /^READ_BUDGET_TRANSACTIONS must be a whole number/,
      init: true,
    },
    {
      className: 'ConfigError',
      route: 'Transactions',
      event: () => txn('1'),
      env: () => env({ SIGNATURE_URL_TTL_SECONDS: '0' }),
      message: 'SIGNATURE_URL_TTL_SECONDS must be an integer from 1 to 3600, got: "0"',
      init: true,
    },
    {
      className: 'MissingCredentialsError',
      route: 'Transactions',
      event: () => txn('1'),
      env: () => lambdaEnv({ DYNAMODB_ENDPOINT: table.endpoint }),
      message: /^No AWS credentials in the environment/,
      init: true,
    },
  ];
  const outcomes = new Map<string, Outcome>();
  beforeAll(async () => {
    /** A transaction's item: its key, id and version, and `more`. */
    const transactionItem = (id: number, more: Record<string, AttributeValue>) =>
      table.client.send(
        new PutItemCommand({
          TableName: table.tableName,
          Item: {
            pk: { S: `TXN#${id}` },
            sk: { S: 'TXN' },
            id: { N: String(id) },
            v: { S: startVersion() },
            ...more,
          },
        }),
      );
    // Without the fields of SPEC 3: the mapping refuses it (500).
    await transactionItem(CORRUPT_ID, { total_amount: { N: '1.5' } });
    // A user who has read once in this hour's window and the next (the scenario may cross one).
    const window = windowStart(Math.floor(Date.now() / 1000), HOUR);
    const key = accessStateKey(OVER_BUDGET_SUB);
    await table.client.send(
      new PutItemCommand({
        TableName: table.tableName,
        Item: {
          pk: { S: key.pk },
          sk: { S: key.sk },
          ...Object.fromEntries(
            [window, window + HOUR].map((w) => [
              readCounter('transaction', counterSlot(w, HOUR)),
              { N: String(BigInt(w) * COUNT_SCALE + 1n) },
            ]),
          ),
        },
      }),
    );
    for (const s of SCENARIOS)
      outcomes.set(s.className, await observe(s.route, s.event(), s.env()));
  }, 120_000);

  test('every error class in the bundles has a way to happen here (a new one needs a scenario)', () => {
    const classes = new Set<string>();
    for (const route of functionList) {
      for (const input of Object.keys(bundles.get(route.id)!.metafile.inputs)) {
        if (input.includes('node_modules/')) continue;
        const source = readFileSync(join(PROJECT_ROOT, input), 'utf8');
        for (const [, abstract, name] of source.matchAll(
          /^export (abstract )?class (\w+) extends \w*Error\b/gm,
        ))
          if (!abstract) classes.add(name!);
      }
    }
    expect([...classes].sort()).toEqual(SCENARIOS.map((s) => s.className).sort());
  });

  test.each(SCENARIOS.map((s) => [s.className, s] as const))(
    '%s: the object the bundle throws is named so, though esbuild renamed its class',
    (className, scenario) => {
      const outcome = outcomes.get(className)!;
      const thrown = outcome.errors.filter((e) =>
        typeof scenario.message === 'string'
          ? e.message === scenario.message
          : scenario.message.test(e.message),
      );
      expect(thrown.length).toBeGreaterThan(0);
      for (const error of thrown) expect(error.name).toBe(className);
      // The check means something only because the class itself is renamed by the minifier.
      expect(thrown.map((e) => e.className)).not.toContain(className);
      if (scenario.init) {
        expect(outcome.initError).toBe(className);
      } else {
        expect(outcome.status).toBe(scenario.status);
      }
    },
  );

  test.each([
    ['ServiceUnavailableError', 503],
    ['CorruptRecordError', 500],
  ])('%s: the request log line with status %i names it in errorName', (className, status) => {
    const requestLines = outcomes.get(className)!.logs.filter((l) => l.message === 'request');
    expect(requestLines).toEqual([expect.objectContaining({ status, errorName: className })]);
  });
});
