/**
 * A part that leaves more files than a report lists (a mass delete): each save of its progress
 * keeps the first MAX_LISTED_FILES_LEFT files by line and their exact count, not every file so
 * far, so that a save costs the same at the part's end as at its start; a file another record of
 * the part names, even on a later line, is never listed; and an attempt killed half-way then run
 * again ends with what a run never killed ends with.
 */
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { ENTITIES } from '../../core/entities.ts';
import { importVersion } from '../../core/import-version.ts';
import { createTimeCodec } from '../../core/times.ts';
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
import { startTestTable } from '../support/dynamodb.ts';
import { memoryS3 } from '../support/memory-s3.ts';
import { customer, line } from '../fixtures.ts';

let table: Awaited<ReturnType<typeof startTestTable>>;
beforeAll(async () => {
  table = await startTestTable('import-part-files-left');
}, 90_000);
afterAll(async () => table?.stop());

const parse = createLineParser(createTimeCodec('UTC'));
const RECORDS = MAX_LISTED_FILES_LEFT + 500;
const version = (second: number, importId: string) =>
  importVersion({
    uploadedAt: new Date(Date.now() - 60_000 + second * 1000).toISOString(),
    sequencer: '1',
    importId: importId.padEnd(32, '0'),
  });

const photo = (base: number, i: number) => `id-photos/${base}-${i}.jpg`;

/** A customer put on line `lineNo`. */
function put(id: number, idPhoto: string, lineNo: number): Parsed {
  const parsed = parse(line('customer', customer({ id, id_photo: idPhoto })));
  if (!parsed.ok || parsed.kind !== 'put') throw new Error('fixture is invalid');
  return { ...parsed, lineNo };
}

/**
 * Customers base+1 … base+RECORDS stored, each with its photo; then one part deleting them all, and
 * on its last line a new customer naming the photo of the fifth.
 */
async function run(base: number, { killAfterSaves = 0, headless = false } = {}) {
  async function* earlier() {
    for (let i = 1; i <= RECORDS; i += 1) yield put(base + i, photo(base, i), i);
  }
  await writeRecords(earlier(), {
    client: table.client,
    tableName: table.tableName,
    version: version(0, `e${base}`),
  });

  const importId = `c${base}`;
  let dead = false;
  const { s3, objects } = memoryS3(() => dead);
  const part: Parsed[] = [];
  for (let i = 1; i <= RECORDS; i += 1)
    part.push({ kind: 'delete', entity: ENTITIES.customer, id: BigInt(base + i), lineNo: i });
  part.push(put(base + RECORDS + 1, photo(base, 5), RECORDS + 1));
  const stored = storedRecordsWriter();
  for (const record of part) stored.add(record);
  // `headless`: as CheckPart kept records before it named their files at the head.
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
  const input = {
    importId,
    version: version(10, importId),
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
    audit: () => {},
  };
  if (killAfterSaves > 0) {
    await expect(writePart(deps, input, undefined, kill.signal)).rejects.toThrow('died');
    dead = false;
  }
  const counts = await writePart(deps, input);
  const written = JSON.parse(
    Buffer.from(objects.get(writtenKey(importId, 0))!).toString('utf8'),
  ) as WrittenPart;
  return { counts, written, saves, largestSave };
}

test(`a part deleting ${RECORDS} records that named files saves and keeps the first ${MAX_LISTED_FILES_LEFT} files left and their exact count`, async () => {
  const whole = await run(100_000);
  expect(whole.counts).toMatchObject({ deletes: RECORDS, records: 1, notFound: 0 });
  // The fifth's photo is named again on the part's last line: not left.
  const lines = Array.from({ length: RECORDS }, (_, i) => i + 1).filter((l) => l !== 5);
  expect(whole.written.filesLeftCount).toBe(RECORDS - 1);
  expect(whole.written.filesLeft.map(([l]) => l)).toEqual(lines.slice(0, MAX_LISTED_FILES_LEFT));
  expect(whole.written.filesLeft[0]).toEqual([
    1,
    photo(100_000, 1),
    `line 1: id_photo: "${photo(100_000, 1)}" is no longer named by customer 100001 (deleted): remove it from the files bucket unless another record names it`,
  ]);
  expect(whole.saves).toBeGreaterThan(2);
  expect(whole.largestSave).toBeLessThanOrEqual(MAX_LISTED_FILES_LEFT);

  // Killed once it has saved well past the first thousand files, then run again.
  const killed = await run(200_000, { killAfterSaves: Math.ceil(whole.saves * 0.8) });
  expect(killed.counts).toEqual(whole.counts);
  expect(killed.written.filesLeftCount).toBe(RECORDS - 1);
  expect(killed.written.filesLeft.map(([l]) => l)).toEqual(lines.slice(0, MAX_LISTED_FILES_LEFT));
  expect(killed.largestSave).toBeLessThanOrEqual(MAX_LISTED_FILES_LEFT);

  // A records object from before the head: the keys its records name are read from them first.
  const headless = await run(300_000, { headless: true });
  expect(headless.written.filesLeftCount).toBe(RECORDS - 1);
  expect(headless.written.filesLeft.map(([l]) => l)).toEqual(lines.slice(0, MAX_LISTED_FILES_LEFT));
}, 120_000);
