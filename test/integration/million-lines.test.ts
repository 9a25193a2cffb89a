/**
 * A file of 10^6 lines whose last line only is bad, through `npm run import`'s local drop (SPEC 6,
 * 9): nothing written, `line 1000000: ...`, a non-zero exit.
 *
 * @slow: started first on a fresh clone (test/support/sequencer.js).
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { PROJECT_ROOT } from '../../core/project-root.ts';
import { freePort } from '../../local/net.ts';
import { startS3 } from '../../local/s3/s3-server.ts';
import { customer, line, sparseCustomer } from '../fixtures.ts';
import { startTestTable } from '../support/dynamodb.ts';
import { CLEAN_ENV } from '../support/clean-env.ts';

const dir = mkdtempSync(join(tmpdir(), 'million-'));
let table: Awaited<ReturnType<typeof startTestTable>>;

async function itemCount(): Promise<number> {
  const result = await table.client.send(
    new ScanCommand({ TableName: table.tableName, Select: 'COUNT' }),
  );
  return result.Count ?? 0;
}

beforeAll(async () => {
  table = await startTestTable('million-table');
}, 90_000);

afterAll(async () => {
  await table?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('10^6 lines, only the last one bad: nothing written, `line 1000000: ...`', async () => {
  const N = 1_000_000;
  const path = join(dir, 'million.jsonl');
  // Small valid customers, each with its own id, streamed to disk.
  const started = performance.now();
  const out = createWriteStream(path);
  const template = line(
    'customer',
    sparseCustomer({ id: 1, first_name: 'F', middle_name: 'M', last_name: 'L', email: 'a@b' }),
  ).split('"id":1,');
  let chunk = '';
  for (let id = 1; id < N; id += 1) {
    chunk += `${template[0]}"id":${id},${template[1]}\n`;
    if (chunk.length >= 1 << 20) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(`${chunk}${line('customer', customer({ id: N, email: 'not-an-e-mail' }))}\n`);
  await once(out, 'finish');
  const written = performance.now();

  // Through the command a user runs (bin/import.ts, outside jest's module loader), into a
  // local drop whose S3 runs here (the spawn is asynchronous, so it answers).
  const before = await itemCount();
  const s3 = await startS3({ port: await freePort(), dataDir: join(dir, 's3') });
  writeFileSync(
    join(dir, 'state.json'),
    JSON.stringify({
      tableName: table.tableName,
      dynamoDbEndpoint: table.endpoint,
      s3Endpoint: s3.endpoint,
      importBucketName: s3.importBucketName,
      displayTimeZone: 'UTC',
    }),
  );
  const child = spawn(process.execPath, ['bin/import.ts', path], {
    cwd: PROJECT_ROOT,
    env: { ...CLEAN_ENV, LOCAL_DATA_DIR: dir },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  const validated = performance.now();
  await s3.stop();
  rmSync(path, { force: true });

  // Besides the report, stderr has a progress line at least every 10 s (commands/import/progress-line.ts).
  const progress = /^Import (uploading|planning|checking|writing|reporting)\b.*\(\d+ s\)\n/gm;
  const report = stderr.replace(progress, '').replace(/^Report: .*\n$/m, '');
  expect({ code, stdout, stderr: report }).toEqual({
    code: 1,
    stdout: '',
    stderr:
      'line 1000000: customer.email: must be an e-mail address\n' +
      'The file has 1 problem; nothing was written\n',
  });
  expect(stderr).toMatch(/^Report: reports\/[0-9a-f]{32}\.json/m);
  expect(await itemCount()).toBe(before);
  console.log(
    `10^6 lines: written in ${Math.round(written - started)} ms, validated by npm run import in ${Math.round(validated - written)} ms`,
  );
}, 240_000);
