/**
 * What the bundle checks share (test/infra/lambda-bundles.test.ts): the bundles built from BUNDLING as
 * `cdk synth` builds them, a table holding a record of each kind, and a handler invoked once in a
 * fresh process with only what Lambda gives a function. Built once for both files' checks.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build, type Metafile } from 'esbuild';
import { esbuildOptions } from '../../lib/esbuild-options.ts';
import { BUNDLING } from '../../lib/project-function.ts';
import { functionList } from '../../core/routes.ts';
import { apiFunctionEnv } from '../../core/function-env.ts';
import { DEFAULT_SETTINGS } from '../../stage/settings.ts';

import { PROJECT_ROOT } from '../../core/project-root.ts';
import { customer, line, transaction } from '../fixtures.ts';
import { startTestTable, TEST_CURSOR_KEY } from './dynamodb.ts';
import { apiEvent } from './events.ts';

export const run = promisify(execFile);
export const dir = mkdtempSync(join(tmpdir(), 'lambda-bundles-'));
/** An empty home: no ~/.aws for a default chain to find. */
export const home = mkdtempSync(join(tmpdir(), 'lambda-home-'));
export const FIXED_CLOCK = '2026-01-02T03:04:05Z';
export const CREDENTIALS = {
  AWS_ACCESS_KEY_ID: 'ASIABUNDLETEST',
  AWS_SECRET_ACCESS_KEY: 'bundle-test-secret',
  AWS_SESSION_TOKEN: 'bundle-test-session',
};

/** Records with a file each, so that each GET presigns a URL. */
export const TRANSACTION = transaction();
export const CUSTOMER = customer({ id_photo: 'id-photos/c-7.png' });

export const bundles = new Map<string, { file: string; metafile: Metafile }>();
/** The transaction function built the stock way: BUNDLING without the alias, the SDK's default chain in. */
export const STOCK_BUNDLE = 'Transactions (stock)';
export const { esbuildArgs: _alias, ...STOCK } = BUNDLING;
export let table: Awaited<ReturnType<typeof startTestTable>>;

beforeAll(async () => {
  const [started] = await Promise.all([
    startTestTable(),
    ...[
      ...functionList.map((fn) => ({ name: fn.id, entry: fn.entry, bundling: BUNDLING })),
      { name: STOCK_BUNDLE, entry: functionList[0]!.entry, bundling: STOCK },
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
  await table.importLines([line('transaction', TRANSACTION), line('customer', CUSTOMER)]);
}, 90_000);
afterAll(async () => {
  await table?.stop();
  rmSync(dir, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

/** Lambda's environment for a function as the stage sets it, and nothing of this machine's. */
export function lambdaEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    LANG: 'C.UTF-8',
    TZ: ':UTC',
    AWS_REGION: 'us-east-1',
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_LAMBDA_FUNCTION_NAME: 'bundle-test',
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
    ...apiFunctionEnv(DEFAULT_SETTINGS, {
      tableName: table.tableName,
      bucketName: 'files',
      cursorKey: TEST_CURSOR_KEY,
    }),
    FIXED_CLOCK,
    ...extra,
  };
}

export const HANDLER_CHILD = `
const { handler } = await import(process.argv[1]);
const result = await handler(JSON.parse(process.argv[2]), {
  awsRequestId: 'bundle-test',
  getRemainingTimeInMillis: () => 10000,
});
process.stdout.write('RESULT ' + JSON.stringify(result) + '\\n');
`;

/** Invokes a bundle's handler once in a fresh process (clock fixed), as Lambda loads it. */
export async function invoke(route: string, event: unknown, env: NodeJS.ProcessEnv) {
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

export const EVENTS: Record<string, unknown> = {
  Transactions: apiEvent('GET /transactions/{transaction_id}', { transaction_id: '1' }),
  Customers: apiEvent('GET /customers/{customer_id}', { customer_id: '7' }),
};
