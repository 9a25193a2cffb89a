/** Every error class a function can throw, made to happen in the bundles: its name survives minifying. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PutItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { routes } from '../../../stage/routes.ts';
import { PROJECT_ROOT } from '../../../core/project-root.ts';
import { apiEvent, testClaims } from '../../support/events.ts';
import {
  COUNT_SCALE,
  accessStateKey,
  counterSlot,
  readCounter,
} from '../../../core/access-state.ts';
import { windowStart } from '../../../core/read-budgets.ts';
import { startVersion } from '../../../core/import-version.ts';
import { CREDENTIALS, bundles, dir, lambdaEnv, run, table } from './setup.ts';

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
      route: 'GetTransaction',
      event: () => txn('x1'),
      env,
      message: 'Invalid transaction id',
      status: 400,
    },
    {
      className: 'UnauthorizedError',
      route: 'GetTransaction',
      event: () => txn('1', { token_use: 'id' }),
      env,
      message: 'Unauthorized',
      status: 401,
    },
    {
      className: 'ForbiddenError',
      route: 'GetCustomer',
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
      route: 'GetTransaction',
      event: () => txn('424242'),
      env,
      message: 'Transaction not found',
      status: 404,
    },
    {
      className: 'ServiceUnavailableError',
      route: 'GetTransaction',
      event: () => txn('1'),
      // Nothing listens on port 1: DynamoDB unreachable, after the SDK's retries a 503.
      env: () => env({ DYNAMODB_ENDPOINT: 'http://127.0.0.1:1' }),
      message: 'Service unavailable',
      status: 503,
    },
    {
      className: 'CorruptRecordError',
      route: 'GetTransaction',
      event: () => txn(String(CORRUPT_ID)),
      env,
      message: /^Stored transaction is corrupt at /,
      status: 500,
    },
    {
      className: 'TooManyRequestsError',
      route: 'GetTransaction',
      // The user whose counter (written below) is at the budget of 1 in this hour's window.
      event: () => txn('1', testClaims({ sub: OVER_BUDGET_SUB })),
      env: () => env({ READ_BUDGET_TRANSACTIONS: '1', READ_BUDGET_WINDOW_SECONDS: String(HOUR) }),
      message: 'Too many requests',
      status: 429,
    },
    {
      className: 'ReadBudgetError',
      route: 'GetTransaction',
      event: () => txn('1'),
      env: () => env({ READ_BUDGET_TRANSACTIONS: '0' }),
      message: /^READ_BUDGET_TRANSACTIONS must be a whole number/,
      init: true,
    },
    {
      className: 'ConfigError',
      route: 'GetTransaction',
      event: () => txn('1'),
      env: () => env({ SIGNATURE_URL_TTL_SECONDS: '0' }),
      message: 'SIGNATURE_URL_TTL_SECONDS must be an integer from 1 to 3600, got: "0"',
      init: true,
    },
    {
      className: 'MissingCredentialsError',
      route: 'GetTransaction',
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
    for (const route of routes) {
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
