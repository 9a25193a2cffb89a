/**
 * SPEC 6.1 when the import process dies: the direct import (the validation and writing code the
 * drop's steps run) in a process of its own, killed with SIGKILL at many instants of its writing
 * (with records in flight among them); after each kill every record reads whole through the real
 * handler, and a run to the end leaves every record as the file says and nothing stray in the
 * table.
 *
 * @slow: started first on a fresh clone (test/support/sequencer.js).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importFile } from '../../import/direct-import.ts';
import { PROJECT_ROOT } from '../../core/project-root.ts';
import { startTestTable } from '../support/dynamodb.ts';
import { startReaders, type Entity } from '../support/readers.ts';
import { range, targetsOf, versionLines, versionOf, type Version } from '../support/versions.ts';
import { CLEAN_ENV } from '../support/clean-env.ts';

const dir = mkdtempSync(join(tmpdir(), 'import-crash-'));
let table: Awaited<ReturnType<typeof startTestTable>>;
let readers: Awaited<ReturnType<typeof startReaders>>;

beforeAll(async () => {
  table = await startTestTable();
  readers = await startReaders(table.endpoint, table.tableName);
}, 90_000);
afterAll(async () => {
  await table?.stop();
  rmSync(dir, { recursive: true, force: true });
});

// Enough records that a kill lands while they are being written: each is one UpdateItem.
const TXNS = range(101, 300);
const CUSTS = range(101, 100);
/** Written in A, deleted in B. */
const DELETED = range(1001, 30);
const SET = { txns: TXNS, custs: CUSTS, deleted: DELETED };

function file(v: Version): string {
  const path = join(dir, `${v}.jsonl`);
  writeFileSync(path, versionLines(SET, v).join('\n') + '\n');
  return path;
}

/** The direct import against the test table; killed `killAfterMs` after writing starts. */
function runImport(path: string, killAfterMs?: number) {
  const child = spawn(process.execPath, ['local/tools/direct-import.ts', path], {
    cwd: PROJECT_ROOT,
    env: {
      ...CLEAN_ENV,
      TABLE_NAME: table.tableName,
      DYNAMODB_ENDPOINT: table.endpoint,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => {
    output += d.toString();
    if (killAfterMs !== undefined && output.includes('Importing: 0 of'))
      setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  });
  return new Promise<{ code: number | null; signal: string | null; output: string }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, output })),
  );
}

/**
 * Reads every record through the handlers: what was not whole (a mix, or an error), by record.
 */
async function readAll(): Promise<{ notWhole: string[]; versions: Record<string, number> }> {
  const versions: Record<string, number> = { A: 0, B: 0, gone: 0 };
  const notWhole: string[] = [];
  const targets = targetsOf(SET);
  const read = async ([entity, id]: [Entity, number]) => {
    const { status, data } = await readers.get(entity, id);
    if (status === 404 && DELETED.includes(id)) {
      versions.gone! += 1;
      return;
    }
    const v = status === 200 ? versionOf(entity, data) : undefined;
    if (v) versions[v]! += 1;
    else notWhole.push(`${entity} ${id}: ${status}`);
  };
  for (let i = 0; i < targets.length; i += 10)
    await Promise.all(targets.slice(i, i + 10).map(read));
  return { notWhole, versions };
}

test('killed at any instant, every record still reads whole; a re-run completes and heals', async () => {
  await importFile(file('A'), {
    client: table.client,
    tableName: table.tableName,
    displayTimeZone: 'UTC',
  });
  const files = { A: file('A'), B: file('B') };
  let killed = 0;
  /** Kills that left the set part old, part new: they landed while records were being written. */
  let midWrite = 0;
  const notWhole: string[] = [];
  // The longer ones land mid-write on a busy machine too, where the import starts slowly.
  const delays = [0, 20, 60, 130, 250, 600, 1200];
  for (const [i, delay] of delays.entries()) {
    const run = await runImport(files[i % 2 === 0 ? 'B' : 'A'], delay);
    if (run.signal === 'SIGKILL') killed += 1;
    else expect(run.code).toBe(0);
    const after = await readAll();
    notWhole.push(...after.notWhole);
    if (run.signal === 'SIGKILL' && after.versions.A! > 0 && after.versions.B! > 0) midWrite += 1;
  }
  console.log(
    `import-crash: ${killed} of ${delays.length} runs killed, ${midWrite} mid-write, ${notWhole.length} records not whole after them`,
  );
  expect(notWhole).toEqual([]);
  expect(killed).toBeGreaterThanOrEqual(delays.length / 2);
  expect(midWrite).toBeGreaterThan(0);

  const final = await runImport(files.B);
  expect(final.code).toBe(0);
  expect(final.output).toContain(
    `Imported 400 records (300 transactions, 100 customers), deleted 30`,
  );
  expect(await readAll()).toEqual({ notWhole: [], versions: { A: 0, B: 400, gone: 30 } });
}, 240_000);
