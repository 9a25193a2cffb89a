/**
 * SPEC 9, "every record written" counted after a crash: a part's writer killed between two groups
 * (its last group's outcomes saved, nothing after), then run again, reports the counts a run
 * never killed reports: each record once, none "written again", deletes of records not there
 * counted as such, and the audit trail holds one event per record.
 *
 * And a part that leaves more files than a report lists (a mass delete): each save keeps the
 * first MAX_LISTED_FILES_LEFT files by line and their exact count, not every file so far, so that
 * a save costs the same at the part's end as at its start; a file another record of the part
 * names, even on a later line, is never listed; killed and run again, it ends the same.
 */
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { createTimeCodec } from '../../core/times.ts';
import { importVersion } from '../../core/import-version.ts';
import type { ImportAuditEvent } from '../../import/audit.ts';
import type { Parsed } from '../../import/checked-lines.ts';
import { storedRecordLine, storedRecordsWriter } from '../../import/parts.ts';
import { createLineParser } from '../../import/records.ts';
import { writePart } from '../../import/steps/write-part.ts';
import {
  MAX_LISTED_FILES_LEFT,
  recordsKey,
  writingKey,
  writtenKey,
  type WritingCounts,
  type WrittenPart,
} from '../../import/steps/work-folder.ts';
import { writeRecords } from '../../import/write-records.ts';
import { ENTITIES } from '../../core/entities.ts';
import { startTestTable } from '../support/dynamodb.ts';
import { memoryS3 } from '../support/memory-s3.ts';
import { customer, line, transaction } from '../fixtures.ts';

let table: Awaited<ReturnType<typeof startTestTable>>;
beforeAll(async () => {
  table = await startTestTable('import-part-crash');
}, 90_000);
afterAll(async () => table?.stop());

const parse = createLineParser(createTimeCodec('UTC'));

/** A part of 23 records from `base`: transactions, customers, and deletes of ids never written. */
function records(base: number): Parsed[] {
  const out: Parsed[] = [];
  for (let i = 0; i < 10; i += 1) {
    const parsed = parse(line('transaction', transaction({ id: base + i })));
    if (!parsed.ok || parsed.kind !== 'put') throw new Error('fixture is invalid');
    out.push({ ...parsed, lineNo: out.length + 1 });
  }
  for (let i = 0; i < 8; i += 1) {
    const parsed = parse(line('customer', customer({ id: base + i })));
    if (!parsed.ok || parsed.kind !== 'put') throw new Error('fixture is invalid');
    out.push({ ...parsed, lineNo: out.length + 1 });
  }
  for (let i = 0; i < 5; i += 1)
    out.push({
      kind: 'delete',
      entity: ENTITIES.transaction,
      id: BigInt(base + 500 + i),
      lineNo: out.length + 1,
    });
  return out;
}

const versionOf = (importId: string, seconds = 0) =>
  importVersion({
    uploadedAt: new Date(Date.now() + (seconds - 60) * 1000).toISOString(),
    sequencer: '1',
    importId: importId.padEnd(32, '0'),
  });

interface RunOptions {
  /** The process dies once this many saves have landed (the first is made before any write). */
  killAfterSaves?: number;
  /** The records object as CheckPart kept it before it named their files at its head. */
  headless?: boolean;
  writeConcurrency?: number;
  recordsPerGroup?: number;
}

/** WritePart over one part of `part`; killed as `options` say, then run again. */
async function run(importId: string, part: Parsed[], options: RunOptions = {}) {
  const { killAfterSaves = 0, headless = false, ...settings } = options;
  let dead = false;
  const { s3, objects } = memoryS3(() => dead);
  const stored = storedRecordsWriter();
  for (const record of part) stored.add(record);
  objects.set(
    recordsKey(importId, 0),
    headless ? Buffer.from(part.map(storedRecordLine).join('')) : stored.bytes(),
  );
  let saves = 0;
  let largestSave = 0;
  const kill = new AbortController();
  const send = s3.send.bind(s3);
  s3.send = (async (command: unknown) => {
    const result = await send(command as never);
    if (command instanceof PutObjectCommand && command.input.Key === writingKey(importId, 0)) {
      const saved = JSON.parse(String(command.input.Body)) as WritingCounts;
      largestSave = Math.max(largestSave, saved.filesLeft.length);
      if ((saves += 1) === killAfterSaves) {
        dead = true;
        kill.abort(new Error('the process died'));
      }
    }
    return result;
  }) as typeof s3.send;
  const events: ImportAuditEvent[] = [];
  const input = {
    importId,
    version: versionOf(importId, 10),
    bucket: 'imports',
    key: 'incoming/f.jsonl',
    versionId: 'null',
    part: { index: 0, start: 0, end: 1, firstLine: 1 },
  };
  const deps = {
    s3,
    client: table.client,
    tableName: table.tableName,
    displayTimeZone: 'UTC',
    audit: (...e: ImportAuditEvent[]) => void (dead || events.push(...e)),
    ...settings,
  };
  if (killAfterSaves > 0) {
    await expect(writePart(deps, input, undefined, kill.signal)).rejects.toThrow('died');
    dead = false;
  }
  const counts = await writePart(deps, input);
  const written = JSON.parse(
    Buffer.from(objects.get(writtenKey(importId, 0))!).toString('utf8'),
  ) as WrittenPart;
  return { counts, events, written, saves, largestSave };
}

test('a part killed between groups and run again reports the counts of a run never killed', async () => {
  const small = { writeConcurrency: 1, recordsPerGroup: 5 };
  const whole = await run('aaaa', records(1000), small);
  for (const groups of [1, 2, 4]) {
    const crashed = await run(`b${groups}`, records(2000 + groups * 1000), {
      ...small,
      killAfterSaves: groups + 1,
    });
    expect(crashed.counts).toEqual(whole.counts);
    expect(crashed.events.filter((e) => e.kind === 'record')).toHaveLength(23);
  }
  expect(whole.counts).toMatchObject({ records: 18, deletes: 5, notFound: 5, again: 0 });
}, 60_000);

const MANY = MAX_LISTED_FILES_LEFT + 100;
const photo = (base: number, i: number) => `id-photos/${base}-${i}.jpg`;

/** A customer put on line `lineNo`. */
function put(id: number, idPhoto: string, lineNo: number): Parsed {
  const parsed = parse(line('customer', customer({ id, id_photo: idPhoto })));
  if (!parsed.ok || parsed.kind !== 'put') throw new Error('fixture is invalid');
  return { ...parsed, lineNo };
}

/**
 * Customers base+1 … base+MANY stored, each with its photo; then a part deleting them all, with
 * on its last line a new customer naming the fifth's photo.
 */
async function massDelete(base: number, options: RunOptions = {}) {
  async function* before() {
    for (let i = 1; i <= MANY; i += 1) yield put(base + i, photo(base, i), i);
  }
  const importId = `c${base}`;
  await writeRecords(before(), {
    client: table.client,
    tableName: table.tableName,
    version: versionOf(`e${base}`),
  });
  const part: Parsed[] = [];
  for (let i = 1; i <= MANY; i += 1)
    part.push({ kind: 'delete', entity: ENTITIES.customer, id: BigInt(base + i), lineNo: i });
  part.push(put(base + MANY + 1, photo(base, 5), MANY + 1));
  return run(importId, part, options);
}

test(`a part deleting ${MANY} records that named files saves and keeps the first ${MAX_LISTED_FILES_LEFT} files left and their exact count`, async () => {
  const whole = await massDelete(100_000);
  expect(whole.counts).toMatchObject({ deletes: MANY, records: 1, notFound: 0 });
  // The fifth's photo is named again on the part's last line: not left.
  const lines = Array.from({ length: MANY }, (_, i) => i + 1).filter((l) => l !== 5);
  const listed = lines.slice(0, MAX_LISTED_FILES_LEFT);
  expect(whole.written.filesLeftCount).toBe(MANY - 1);
  expect(whole.written.filesLeft.map(([l]) => l)).toEqual(listed);
  expect(whole.written.filesLeft[0]).toEqual([
    1,
    photo(100_000, 1),
    `line 1: id_photo: "${photo(100_000, 1)}" is no longer named by customer 100001 (deleted): remove it from the files bucket unless another record names it`,
  ]);
  expect(whole.saves).toBeGreaterThan(2);
  expect(whole.largestSave).toBeLessThanOrEqual(MAX_LISTED_FILES_LEFT);

  // Killed once it has saved well past the first thousand files, then run again; and a records
  // object from before the head, whose named keys are read from its records first.
  const killed = await massDelete(200_000, { killAfterSaves: Math.ceil(whole.saves * 0.8) });
  const headless = await massDelete(300_000, { headless: true });
  for (const other of [killed, headless]) {
    expect(other.counts).toEqual(whole.counts);
    expect(other.written.filesLeftCount).toBe(MANY - 1);
    expect(other.written.filesLeft.map(([l]) => l)).toEqual(listed);
    expect(other.largestSave).toBeLessThanOrEqual(MAX_LISTED_FILES_LEFT);
  }
}, 240_000);
