/**
 * `npm run import -- <file>` as a user runs it (SPEC 5, 9): through the local rig's drop, the
 * exit status, the report, the final count, the rig's own display zone.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { PROJECT_ROOT } from '../../core/project-root.ts';
import { customer, line, transaction } from '../fixtures.ts';
import { startTestDrop } from '../support/drop.ts';
import { CLEAN_ENV } from '../support/clean-env.ts';
import { FUNCTION_ENV, displayTimeEnv } from '../../core/function-env.ts';
import type { LocalState } from '../../local/rig/state.ts';

const dir = mkdtempSync(join(tmpdir(), 'import-cli-'));
let drop: Awaited<ReturnType<typeof startTestDrop>>;

/** A state.json as a running `npm start` leaves it for the import, in its own directory. */
function writeState(stateDir: string, zone: Partial<LocalState>) {
  mkdirSync(stateDir, { recursive: true });
  writeFileSync(
    join(stateDir, 'state.json'),
    JSON.stringify({
      tableName: drop.table.tableName,
      dynamoDbEndpoint: drop.table.endpoint,
      s3Endpoint: drop.s3.endpoint,
      importBucketName: drop.s3.importBucketName,
      s3DataDir: drop.s3DataDir,
      bucketName: drop.s3.bucketName,
      ...zone,
    }),
  );
}

/** Asia/Manila's offsets as the rig's state carries them: how the rig works them out. */
const MANILA = 'Asia/Manila';
const manilaOffsets = displayTimeEnv(MANILA)[FUNCTION_ENV.displayTimeZoneOffsets]!;

beforeAll(async () => {
  drop = await startTestDrop();
  // A display zone other than UTC, with its table.
  writeState(dir, { displayTimeZone: MANILA, displayTimeZoneOffsets: manilaOffsets });
}, 90_000);
afterAll(async () => {
  await drop?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The command in a child process; asynchronous, as the local S3 runs in this one. */
function run(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['bin/import.ts', ...args], {
    cwd: PROJECT_ROOT,
    env: { ...CLEAN_ENV, LOCAL_DATA_DIR: dir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 60_000,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (status) => resolve({ status, stdout, stderr })),
  );
}

function runImport(lines: string[], env: Record<string, string> = {}) {
  const file = join(dir, `f${Math.random().toString(36).slice(2)}.jsonl`);
  writeFileSync(file, lines.join('\n'));
  return run([file], env);
}

const stored = async (pk: string) =>
  (
    await drop.table.client.send(
      new GetCommand({ TableName: drop.table.tableName, Key: { pk, sk: pk.slice(0, 3) } }),
    )
  ).Item;

test('a bad file: non-zero exit, every problem as `line N: <field path>: <reason>`, nothing written', async () => {
  const r = await runImport([
    line('transaction', transaction({ id: 501 })),
    line('transaction', transaction({ id: 502, rate: 1 })),
    line('customer', customer({ id: 503, date_of_birth: '1990-05-14' })),
  ]);
  expect(r.status).toBe(1);
  expect(r.stdout).toBe('');
  expect(r.stderr).toContain('line 2: transaction.rate: is not a known field\n');
  expect(r.stderr).toContain('line 3: customer.date_of_birth: must be an ISO 8601 UTC time');
  expect(r.stderr).toContain('The file has 2 problems; nothing was written');
  expect(r.stderr).toMatch(/Report: reports\/[0-9a-f]{32}\.json \(SHA-256 [0-9a-f]{64}/);
  expect(await stored('TXN#501')).toBeUndefined();
});

test("a good file: exit 0 and a final count; times read in the local rig's zone, not the operator's", async () => {
  const r = await runImport(
    [line('transaction', transaction({ id: 511 })), line('customer', customer({ id: 511 }))],
    { DISPLAY_TIME_ZONE: 'America/New_York' },
  );
  expect(r.status).toBe(0);
  expect(r.stdout).toMatch(
    /^Imported 2 records \(1 transaction, 1 customer\) from f\w+\.jsonl into the local rig's table/,
  );
  // 10:01:02 in Manila (UTC+8) is 02:01:02 UTC.
  expect((await stored('TXN#511'))?.created_at).toBe('2023-09-15T02:01:02Z');
});

test("the zone's table comes from the rig's state, worked out once at start; one not the zone's is refused", async () => {
  // A table that is not Manila's real one (+09:00 throughout) shows which table read the time.
  const ninehours = JSON.stringify({ ...JSON.parse(manilaOffsets), offsets: [[0, 9 * 3600]] });
  writeState(join(dir, 'nine'), { displayTimeZone: MANILA, displayTimeZoneOffsets: ninehours });
  const good = [line('transaction', transaction({ id: 514 }))];
  const r = await runImport(good, { LOCAL_DATA_DIR: join(dir, 'nine') });
  expect(r.status).toBe(0);
  expect((await stored('TXN#514'))?.created_at).toBe('2023-09-15T01:01:02Z');

  const utcTable = displayTimeEnv('UTC')[FUNCTION_ENV.displayTimeZoneOffsets]!;
  writeState(join(dir, 'other'), { displayTimeZone: MANILA, displayTimeZoneOffsets: utcTable });
  const refused = await runImport([line('transaction', transaction({ id: 515 }))], {
    LOCAL_DATA_DIR: join(dir, 'other'),
  });
  expect(refused.status).not.toBe(0);
  expect(refused.stderr).toContain(
    "state.json's displayTimeZoneOffsets must be the table of Asia/Manila's offsets",
  );
  expect(await stored('TXN#515')).toBeUndefined();
});

test('issue 30: the local report is named by its file on this machine, which holds the report', async () => {
  const r = await runImport([line('transaction', transaction({ id: 512, rate: 1 }))]);
  expect(r.status).toBe(1);
  const id = /Report: reports\/([0-9a-f]{32})\.json /.exec(r.stderr)![1]!;
  const reportFile = /^Report file: (.+)$/m.exec(r.stderr)?.[1];
  expect(reportFile).toBe(
    join(drop.s3DataDir, drop.s3.importBucketName, 'reports', `${id}.json._S3rver_object`),
  );
  expect(JSON.parse(readFileSync(reportFile!, 'utf8'))).toMatchObject({
    importId: id,
    outcome: 'rejected',
    problems: ['line 1: transaction.rate: is not a known field'],
  });
});

test('a file naming 2,000 files not put: ten warnings on the terminal, every one in the report', async () => {
  const r = await runImport(
    Array.from({ length: 2000 }, (_, i) =>
      line('transaction', transaction({ id: 600001 + i, signature: `signatures/never-${i}.png` })),
    ),
  );
  expect(r.status).toBe(0);
  const warnings = r.stderr.split('\n').filter((l) => l.startsWith('warning: '));
  expect(warnings).toHaveLength(10);
  expect(r.stderr).toContain(
    '2000 files named by records are not in the files bucket (the first 10 shown; the report lists every one): ',
  );
  const reportFile = /^Report file: (.+)$/m.exec(r.stderr)![1]!;
  const report = JSON.parse(readFileSync(reportFile, 'utf8'));
  expect(report.warningCount).toBe(2000);
  expect(report.warnings).toHaveLength(2000);
  expect(report.warnings[1999]).toContain('"signatures/never-1999.png" is not in the files bucket');
}, 120_000);

test('TABLE_NAME is refused, with the way to a deployed stage', async () => {
  const r = await runImport([line('transaction', transaction({ id: 521 }))], {
    TABLE_NAME: 'anything',
  });
  expect(r.status).toBe(2);
  expect(r.stderr).toContain('--stage <name>');
});

test('a local drop setting that cannot be used is refused in one line, before anything is sent', async () => {
  for (const [name, value] of [
    ['IMPORT_CONCURRENCY', '0'],
    ['IMPORT_CONCURRENCY', '1001'],
    ['IMPORT_PART_BYTES', '8MiB'],
  ] as const) {
    const r = await runImport([line('transaction', transaction({ id: 522 }))], { [name]: value });
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${name} must be (a positive whole number|a whole number from 1 to 1000), got: "${value}"$`,
        ),
      ),
    ]);
  }
  expect(await stored('TXN#522')).toBeUndefined();
});

test('a stage name that cannot be one is refused before anything is sent', async () => {
  const file = join(dir, 'for-a-stage.jsonl');
  writeFileSync(file, line('transaction', transaction({ id: 531 })));
  const bad = await run([file, '--stage', 'Not_A_Stage']);
  expect(bad.status).toBe(1);
  expect(bad.stderr).toContain('stage must be 1 to 20 lower-case letters');
});

test('no running local rig: a clear error', async () => {
  const r = await runImport([line('transaction', transaction())], {
    LOCAL_DATA_DIR: join(dir, 'nothing'),
  });
  expect(r.status).toBe(1);
  expect(r.stderr).toContain('run `npm start`');
});

test('usage without a file', async () => {
  const r = await run([]);
  expect(r.status).toBe(2);
  expect(r.stderr).toContain(
    'Usage: npm run import -- <file.jsonl> [--stage <name> | --stack <name>]',
  );
});
