/**
 * The README's "The API with curl" block, word for word, in bash against a running local rig
 * (its PORT and data directory in the environment, as a second terminal beside `npm start` has
 * them): every command runs, and each answers what its comment says.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../core/project-root.ts';
import { startLocalRig, type LocalRig } from '../../local/rig/rig.ts';
import { CLEAN_ENV } from '../support/clean-env.ts';
import { testRigOptions } from '../support/shared-dynamodb.ts';

const run = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), 'walk-through-'));
let rig: LocalRig;

beforeAll(async () => {
  rig = await startLocalRig(testRigOptions(dataDir));
}, 90_000);
afterAll(async () => {
  await rig?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The sh block under a README heading, as written. */
function readmeBlock(heading: string): string {
  const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf(`### ${heading}`));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (block === undefined) throw new Error(`no sh block under ${heading}`);
  return block;
}

test('the API with curl: every command of the README block, as written', async () => {
  const block = readmeBlock('The API with curl');
  // Each command's output on a line of its own, after a marker naming it.
  const script = block
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => `echo "=== ${line.replace(/["$`\\]/g, '\\$&')}"\n${line}\necho`)
    .join('\n');
  const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', `exec 2>&1\n${script}`], {
    cwd: PROJECT_ROOT,
    env: {
      ...CLEAN_ENV,
      PORT: new URL(rig.apiUrl).port,
      LOCAL_DATA_DIR: dataDir,
      // npm itself, from the machine's PATH: `npm run` puts the project's Node.js first.
      PATH: process.env.PATH!,
    },
    timeout: 120_000,
    maxBuffer: 10 * 1024 * 1024,
  });
  const outputs = new Map(
    stdout
      .split('=== ')
      .slice(1)
      .map((part) => {
        const newline = part.indexOf('\n');
        return [part.slice(0, newline), part.slice(newline + 1).trim()] as const;
      }),
  );
  const outputOf = (start: string) => {
    const found = [...outputs].find(([command]) => command.startsWith(start));
    if (!found) throw new Error(`no command beginning ${start}`);
    return found[1];
  };
  const get = (who: 'T' | 'C', path: string) =>
    outputOf(`curl -s -H "Authorization: Bearer $${who}" http://127.0.0.1:\${PORT:-3000}${path} `);
  expect(JSON.parse(get('T', '/transactions/1'))).toMatchObject({ message: 'Ok', data: { id: 1 } });
  expect(JSON.parse(get('C', '/customers/1'))).toMatchObject({ message: 'Ok', data: { id: 1 } });
  expect(JSON.parse(get('T', '/customers/1'))).toEqual({ message: 'Forbidden', data: null });
  expect(JSON.parse(outputOf('curl -s http://127.0.0.1:${PORT:-3000}/transactions/1'))).toEqual({
    message: 'Unauthorized',
  });
  expect(JSON.parse(get('T', '/transactions/007'))).toEqual({
    message: 'Invalid transaction id',
    data: null,
  });
  expect(JSON.parse(get('T', '/transactions/999'))).toEqual({
    message: 'Transaction not found',
    data: null,
  });
  expect(get('T', '/transactions/2')).toContain('"total_amount":"12345678901234567890.12"');
  // SPEC 10: what staff hold.
  const lookup = (who: 'T' | 'C', query: string) =>
    JSON.parse(
      outputOf(
        `curl -s -H "Authorization: Bearer $${who}" "http://127.0.0.1:\${PORT:-3000}${query}"`,
      ),
    ) as { data: { id: number }[]; next: string | null };
  const ids = (answer: { data: { id: number }[] }) => answer.data.map((s) => s.id);
  expect(ids(lookup('T', '/transactions?receipt_no=20230916000007'))).toEqual([2]);
  expect(ids(lookup('C', '/customers?last_name=DELA+CRUZ&first_name=juan'))).toEqual([1, 3, 4]);
  expect(ids(lookup('C', '/customers?tin=123-456-789'))).toEqual([1, 3]);
  const listed = JSON.parse(get('C', '/customers/1/transactions')) as { data: { id: number }[] };
  expect(listed).toMatchObject({ message: 'Ok', next: null });
  expect(ids(listed)).toEqual([2, 1]);
  expect(outputOf('npm run files -- put local/demo-files')).toContain(
    "Put 3 files into the local rig's files bucket",
  );
  // More records, really new ones, whose files are all there: no warning.
  const imported = outputOf('npm run import -- local/demo-more-records.jsonl');
  expect(imported).toContain('Imported 3 records (2 transactions, 1 customer)');
  expect(imported).not.toContain('warning');
  expect(JSON.parse(get('C', '/customers/2'))).toMatchObject({
    message: 'Ok',
    data: { id: 2, customer_risk_assessments: [{ id: 2 }, { id: 3 }, { id: 4 }] },
  });
}, 180_000);
