/** `npm run import -- <file>` as a user runs it: exit status, the report, the final count (SPEC 6). */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { PROJECT_ROOT } from '../../lib/project-root';
import { customer, line, transaction } from '../fixtures';
import { startTestTable } from '../support/dynamodb';

const dir = mkdtempSync(join(tmpdir(), 'import-cli-'));
let table: Awaited<ReturnType<typeof startTestTable>>;

beforeAll(async () => {
  table = await startTestTable();
  // What a running `npm start` leaves for the import, with a display zone other than UTC.
  writeFileSync(
    join(dir, 'state.json'),
    JSON.stringify({
      tableName: table.tableName,
      dynamoDbEndpoint: table.endpoint,
      displayTimeZone: 'Asia/Manila',
    }),
  );
}, 90_000);
afterAll(async () => table?.stop());

function runImport(lines: string[], env: Record<string, string> = {}) {
  const file = join(dir, `f${Math.random().toString(36).slice(2)}.jsonl`);
  writeFileSync(file, lines.join('\n'));
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'bin/import.ts', file], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, LOCAL_DATA_DIR: dir, ...env },
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const stored = async (pk: string) =>
  (
    await table.client.send(
      new GetCommand({ TableName: table.tableName, Key: { pk, sk: pk.slice(0, 3) } }),
    )
  ).Item;

test('a bad file: non-zero exit, every problem as `line N: <field path>: <reason>`, nothing written', async () => {
  const r = runImport([
    line('transaction', transaction({ id: 501 })),
    line('transaction', transaction({ id: 502, rate: 1 })),
    line('customer', customer({ id: 503, date_of_birth: '1990-05-14' })),
  ]);
  expect(r.status).toBe(1);
  expect(r.stdout).toBe('');
  expect(r.stderr).toContain('line 2: transaction.rate: is not a known field\n');
  expect(r.stderr).toContain('line 3: customer.date_of_birth: must be an ISO 8601 UTC time');
  expect(r.stderr).toContain('The file has 2 problems; nothing was written');
  expect(await stored('TXN#501')).toBeUndefined();
});

test('a good file: exit 0 and a final count; times read in the stack display zone', async () => {
  const r = runImport([
    line('transaction', transaction({ id: 511 })),
    line('customer', customer({ id: 511 })),
  ]);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  expect(r.stdout).toMatch(
    /^Imported 2 records \(1 transactions, 1 customers\) from f\w+\.jsonl into the local stack's table/,
  );
  // 10:01:02 in Manila (UTC+8) is 02:01:02 UTC.
  expect((await stored('TXN#511'))?.created_at).toBe('2023-09-15T02:01:02Z');
});

test('TABLE_NAME selects a table other than the local stack one, with credentials from the environment', async () => {
  const r = runImport([line('transaction', transaction({ id: 521 }))], {
    TABLE_NAME: table.tableName,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    DYNAMODB_ENDPOINT: table.endpoint,
    LOCAL_DATA_DIR: join(dir, 'no-stack-here'),
  });
  expect(r.status).toBe(0);
  expect(r.stdout).toContain(`into table ${table.tableName}`);
  expect((await stored('TXN#521'))?.created_at).toBe('2023-09-15T10:01:02Z');
});

test('no running local stack and no TABLE_NAME: a clear error', () => {
  const r = runImport([line('transaction', transaction())], {
    LOCAL_DATA_DIR: join(dir, 'nothing'),
  });
  expect(r.status).toBe(1);
  expect(r.stderr).toContain('run `npm start`');
});

test('usage without a file', () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'bin/import.ts'], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
  });
  expect(r.status).toBe(2);
  expect(r.stderr).toContain('Usage: npm run import -- <file.jsonl>');
});
