/**
 * SPEC 9, "every record written" counted after a crash: a part's writer killed between two groups
 * (its last group's outcomes saved, nothing after), then run again, reports the counts a run
 * never killed reports: each record once, none "written again", deletes of records not there
 * counted as such, and the audit trail holds one event per record.
 */
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { createTimeCodec } from '../../core/times.ts';
import { importVersion } from '../../core/import-version.ts';
import type { ImportAuditEvent } from '../../import/audit.ts';
import type { Parsed } from '../../import/checked-lines.ts';
import { storedRecordsWriter } from '../../import/parts.ts';
import { createLineParser } from '../../import/records.ts';
import { writePart } from '../../import/steps/write-part.ts';
import { recordsKey, writingKey } from '../../import/steps/work-folder.ts';
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

/** WritePart over one part; `crashAfterGroups`: the process dies once that many groups are saved. */
async function run(importId: string, base: number, crashAfterGroups?: number) {
  let dead = false;
  const { s3, objects } = memoryS3(() => dead);
  const stored = storedRecordsWriter();
  for (const record of records(base)) stored.add(record);
  objects.set(recordsKey(importId, 0), stored.bytes());
  // Counts the part's saves: the first is made before any write, then one per group.
  let saves = 0;
  const crash = new AbortController();
  const send = s3.send.bind(s3);
  s3.send = (async (command: unknown) => {
    const result = await send(command as never);
    if (
      command instanceof PutObjectCommand &&
      command.input.Key === writingKey(importId, 0) &&
      (saves += 1) === (crashAfterGroups ?? -1) + 1
    ) {
      dead = true;
      crash.abort(new Error('the process died'));
    }
    return result;
  }) as typeof s3.send;
  const events: ImportAuditEvent[] = [];
  const input = {
    importId,
    version: importVersion({
      uploadedAt: new Date().toISOString(),
      sequencer: '1',
      importId: importId.padEnd(32, '0'),
    }),
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
    writeConcurrency: 1,
    recordsPerGroup: 5,
  };
  if (crashAfterGroups !== undefined) {
    await expect(writePart(deps, input, undefined, crash.signal)).rejects.toThrow('died');
    dead = false;
  }
  const counts = await writePart(deps, input);
  return { counts, events };
}

test('a part killed between groups and run again reports the counts of a run never killed', async () => {
  const whole = await run('aaaa', 1000);
  for (const groups of [1, 2, 4]) {
    const crashed = await run(`b${groups}`, 2000 + groups * 1000, groups);
    expect(crashed.counts).toEqual(whole.counts);
    expect(crashed.events.filter((e) => e.kind === 'record')).toHaveLength(23);
  }
  expect(whole.counts).toMatchObject({ records: 18, deletes: 5, notFound: 5, again: 0 });
}, 60_000);
