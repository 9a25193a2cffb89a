/**
 * SPEC 6, 6.1: the file put later wins, whatever order the writes land in. Two or three imports
 * of overlapping records, each with its own upload (some in the same second), run at once against
 * DynamoDB Local through the import's WritePart step (its progress in an S3 of memory); fast-check's
 * scheduler draws the order in which every request lands, answers that are lost (the writer sends
 * again), and attempts that are killed (their requests still in flight land whenever the scheduler
 * says, the dead attempt saves nothing more, and the part is run again, as a retried WritePart or
 * a redrive is). After each run every record is as the latest upload naming it left it, and every
 * import's counts and audit events are what a model of the table says its writes did: a record
 * its version was ever stored in is never reported or audited as left (a lost answer before a
 * later file's write is `maybe`), one it never was is never reported written, and each record is
 * counted once.
 */
import fc from 'fast-check';
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ENTITIES, type Entity } from '../../core/entities.ts';
import { importVersion } from '../../core/import-version.ts';
import { createTimeCodec } from '../../core/times.ts';
import type { ImportAuditEvent, RecordChangedEvent } from '../../import/audit.ts';
import { type ImportSummary } from '../../import/summary.ts';
import { type Parsed } from '../../import/checked-lines.ts';
import { storedRecordsWriter } from '../../import/parts.ts';
import { writePart } from '../../import/steps/write-part.ts';
import { recordsKey, writtenKey, type WrittenPart } from '../../import/steps/work-folder.ts';
import { createLineParser } from '../../import/records.ts';
import { startTestTable } from '../support/dynamodb.ts';
import { memoryS3 } from '../support/memory-s3.ts';
import { customer, line, transaction } from '../fixtures.ts';

let table: Awaited<ReturnType<typeof startTestTable>>;
beforeAll(async () => {
  table = await startTestTable('import-order');
}, 90_000);
afterAll(async () => table?.stop());

const parse = createLineParser(createTimeCodec('UTC'));
const IDS = 5;
const ENTITY_NAMES: Entity[] = ['transaction', 'customer'];

/** What one import does to one record: written with its mark, or deleted. */
interface Change {
  entity: Entity;
  id: number;
  kind: 'put' | 'delete';
}
interface ImportPlan {
  /** Seconds after the run's base time the file was put, and S3's sequencer. */
  second: number;
  sequencer: number;
  changes: Change[];
  /** Per attempt: killed after this many of its requests landed (the last attempt runs whole). */
  kills: number[];
  /** Which of the import's requests (counted over its attempts) have their answer lost. */
  lost: number[];
}

const change = fc.record({
  entity: fc.constantFrom(...ENTITY_NAMES),
  id: fc.integer({ min: 1, max: IDS }),
  kind: fc.constantFrom<Change['kind']>('put', 'put', 'delete'),
});
const importPlan = fc.record({
  second: fc.integer({ min: 0, max: 2 }),
  sequencer: fc.integer({ min: 1, max: 3 }),
  // One line per record, as the import's own check requires.
  changes: fc.uniqueArray(change, {
    minLength: 1,
    maxLength: 8,
    selector: (c) => `${c.entity} ${c.id}`,
  }),
  kills: fc.array(fc.integer({ min: 0, max: 6 }), { maxLength: 2 }),
  lost: fc.uniqueArray(fc.integer({ min: 0, max: 20 }), { maxLength: 3 }),
});

/**
 * A record's stored state as the model keeps it: the version that wrote it, deleted or not, and
 * the file it names (each import's records name a file of their own).
 */
interface Stored {
  version: string;
  deleted: boolean;
  file: string | null;
}

/** The mark each import leaves in a record (which import's copy a reader sees). */
const mark = (importIndex: number) => `${importIndex + 1}0.00`;
/** The file each import's record of an entity names. */
const fileOf = (entity: Entity, importIndex: number) =>
  entity === 'transaction'
    ? `signatures/import-${importIndex}.png`
    : `id-photos/import-${importIndex}.png`;

function recordOf(c: Change, base: number, importIndex: number): Parsed {
  const id = base + c.id;
  if (c.kind === 'delete')
    return { kind: 'delete', entity: ENTITIES[c.entity], id: BigInt(id), lineNo: 1 };
  const fields =
    c.entity === 'transaction'
      ? transaction({
          id,
          total_amount: mark(importIndex),
          signature: fileOf(c.entity, importIndex),
        })
      : customer({
          id,
          first_name: `Mark${mark(importIndex)}`,
          id_photo: fileOf(c.entity, importIndex),
        });
  const parsed = parse(line(c.entity, fields));
  if (!parsed.ok || parsed.kind !== 'put') throw new Error('fixture is invalid');
  return { ...parsed, lineNo: 1 };
}

const keyOf = (entity: Entity, id: number) => `${ENTITIES[entity].keys.partition}${id}`;

class Killed extends Error {
  override readonly name = 'Killed';
}

/** What an import's sends did, as the model saw them land, per record key. */
interface Sends {
  /** Its version was stored in the record at some point. */
  stored: Set<string>;
  /** A send of it had its answer lost, or was cut by a kill. */
  unanswered: Set<string>;
}

/**
 * One import run through the drawn schedule: WritePart's attempts over its one part, with a
 * client whose requests land when the scheduler releases them, one at a time in that order (the
 * model follows them), and whose answers may be lost or cut by a kill.
 */
function runImport(
  s: fc.Scheduler,
  plan: ImportPlan,
  options: {
    version: string;
    importId: string;
    records: Parsed[];
    /** Per record key, every state stored in it, in the order they landed. */
    model: Map<string, Stored[]>;
    land: (apply: () => Promise<void>) => Promise<void>;
    detached: Set<Promise<unknown>>;
    label: string;
  },
) {
  const { version, model, importId } = options;
  // What each of its writes stores.
  const stateOf = new Map(
    options.records.map((r): [string, Stored] => [
      `${r.entity.keys.partition}${r.id}`,
      {
        version,
        deleted: r.kind === 'delete',
        file: r.kind === 'put' ? (r.record[r.entity.fileFields[0]!] as string) : null,
      },
    ]),
  );
  let sent = 0;
  const sends: Sends = { stored: new Set(), unanswered: new Set() };
  const events: ImportAuditEvent[] = [];
  // The running attempt's life: a killed one's requests still land, but it saves nothing more.
  let current = { dead: false };
  const { s3, objects } = memoryS3(
    () => current.dead,
    () => new Killed('the process was killed'),
  );
  const stored = storedRecordsWriter();
  for (const record of options.records) stored.add(record);
  const bucket = 'imports';
  objects.set(recordsKey(importId, 0), stored.bytes());
  let killedAttempts = 0;
  const attempt = async (killAfter: number | undefined): Promise<ImportSummary> => {
    let landed = 0;
    let kill: (error: Error) => void = () => {};
    const killed = new Promise<never>((_, reject) => (kill = reject));
    killed.catch(() => {});
    const life = { dead: false };
    current = life;
    const client = {
      send: async (command: UpdateCommand) => {
        if (life.dead) throw new Killed('the process was killed');
        const n = sent++;
        const key = command.input.Key!.pk as string;
        let result: { ok: unknown } | { error: unknown } | undefined;
        // The request is on its way: it lands when the scheduler says, even after a kill.
        const arrival = s.schedule(Promise.resolve(), `${options.label} ${key}`).then(() =>
          options.land(async () => {
            const before = model.get(key)?.at(-1);
            try {
              result = { ok: await table.client.send(command) };
            } catch (error) {
              result = { error };
            }
            // DynamoDB did as the model of its condition says.
            const sentVersion = command.input.ExpressionAttributeValues![':v'] as string;
            const allowed = before === undefined || before.version < sentVersion;
            expect('ok' in result).toBe(allowed);
            if (allowed) {
              model.set(key, [...(model.get(key) ?? []), stateOf.get(key)!]);
              sends.stored.add(key);
            }
            landed += 1;
            if (killAfter !== undefined && landed >= killAfter && !life.dead) {
              life.dead = true;
              kill(new Killed('the process was killed'));
            }
          }),
        );
        options.detached.add(arrival);
        void arrival.finally(() => options.detached.delete(arrival));
        try {
          await Promise.race([arrival, killed]);
        } catch (error) {
          sends.unanswered.add(key);
          throw error;
        }
        if (life.dead) {
          sends.unanswered.add(key);
          throw new Killed('the process was killed');
        }
        if (plan.lost.includes(n)) {
          sends.unanswered.add(key);
          throw Object.assign(new Error('the answer was lost'), { name: 'TimeoutError' });
        }
        if ('error' in result!) throw result.error;
        return result!.ok;
      },
    } as unknown as DynamoDBDocumentClient;
    if (killAfter === 0) {
      life.dead = true;
      throw new Killed('killed before its first request');
    }
    return writePart(
      {
        s3,
        client,
        tableName: table.tableName,
        displayTimeZone: 'UTC',
        audit: (...e) => {
          if (!life.dead) events.push(...e);
        },
        writeConcurrency: 2,
        recordsPerGroup: 2,
      },
      {
        importId,
        version,
        bucket,
        key: 'incoming/f.jsonl',
        versionId: 'null',
        part: { index: 0, start: 0, end: 1, firstLine: 1 },
      },
    );
  };
  return (async () => {
    let summary: ImportSummary | undefined;
    for (const killAfter of plan.kills) {
      try {
        summary = await attempt(killAfter);
        break;
      } catch (error) {
        if (!(error instanceof Killed)) throw error;
        killedAttempts += 1;
      }
    }
    summary ??= await attempt(undefined);
    const written = JSON.parse(
      Buffer.from(objects.get(writtenKey(importId, 0))!).toString('utf8'),
    ) as WrittenPart;
    return { summary, sends, events, written, killedAttempts };
  })();
}

/**
 * What the model says of one import's report and events: each record counted once; a record its
 * version was ever stored in is written (or deleted), or `maybe`, never left; one it never was is
 * never counted written; `maybe` only where a send of it went unanswered or an attempt was
 * killed, and two later versions were stored since; one record event for each record not left
 * (more only for one written again after a kill), `maybe` on it exactly when counted so. A record
 * counted written lists the file of the state its version replaced (none for a record it
 * created), and a deletion is counted not found exactly when it replaced nothing.
 */
function checkImport(
  records: Parsed[],
  run: Awaited<ReturnType<typeof runImport>>,
  version: string,
  model: Map<string, Stored[]>,
) {
  const { summary, sends, events, written, killedAttempts } = run;
  expect(summary.records + summary.deletes + summary.left + summary.maybe).toBe(records.length);
  expect(summary.transactions + summary.customers).toBe(summary.records);
  expect(summary.again).toBe(0);
  const byKey = new Map<string, RecordChangedEvent[]>();
  for (const event of events)
    if (event.kind === 'record') {
      const key = `${ENTITIES[event.entity].keys.partition}${event.recordId}`;
      byKey.set(key, [...(byKey.get(key) ?? []), event]);
    }
  let maybe = 0;
  let left = 0;
  let notFound = 0;
  let replacedSince = 0;
  for (const record of records) {
    const key = `${record.entity.keys.partition}${record.id}`;
    const what = `${version} ${record.kind} ${key}`;
    const seen = byKey.get(key) ?? [];
    const isMaybe = seen.some((e) => e.maybe === true);
    const history = model.get(key) ?? [];
    const at = history.findIndex((state) => state.version === version);
    if (seen.length === 0) left += 1;
    if (isMaybe) maybe += 1;
    // Never reported (or audited) left when it was written; never written when it was not.
    if (sends.stored.has(key)) expect(`${what}: ${seen.length > 0}`).toBe(`${what}: true`);
    if (seen.length > 0 && !isMaybe) {
      expect(`${what} stored: ${sends.stored.has(key)}`).toBe(`${what} stored: true`);
      // What it replaced, exactly, even where its answer was lost and a later file wrote since.
      const before = history[at - 1];
      const files = (written.filesLeft ?? [])
        .filter(([, , text]) => text.includes(` by ${record.entity.name} ${record.id} (`))
        .map(([, file]) => file);
      const want = before && !before.deleted && before.file !== null ? [before.file] : [];
      expect(`${what} left files ${JSON.stringify(files)}`).toBe(
        `${what} left files ${JSON.stringify(want)}`,
      );
      if (record.kind === 'delete' && (before === undefined || before.deleted)) notFound += 1;
      if (sends.unanswered.has(key) && at < history.length - 1) replacedSince += 1;
    }
    if (isMaybe) {
      expect(seen.every((e) => e.maybe === true)).toBe(true);
      expect(`${what} unanswered: ${sends.unanswered.has(key) || killedAttempts > 0}`).toBe(
        `${what} unanswered: true`,
      );
      const later = history.filter((state) => state.version > version).length;
      expect(`${what} later versions: ${later >= 2}`).toBe(`${what} later versions: true`);
    }
    if (killedAttempts === 0) expect(seen.length).toBeLessThanOrEqual(1);
  }
  expect({ left: summary.left, maybe: summary.maybe, notFound: summary.notFound }).toEqual({
    left,
    maybe,
    notFound,
  });
  expect((written.filesLeft ?? []).filter(([, k]) => k === '?')).toHaveLength(maybe);
  return replacedSince;
}

let runs = 0;
/**
 * Runs that had a record counted written whose answer was lost and which a later file's write
 * replaced since: the case of a lost answer before a later write, told exactly.
 */
let replacedRuns = 0;

test('every record ends as the latest upload naming it left it, in every order drawn; counts exact', async () => {
  const baseSecond = Math.floor(Date.now() / 1000);
  await fc.assert(
    fc.asyncProperty(
      fc.scheduler(),
      fc.array(importPlan, { minLength: 2, maxLength: 3 }),
      async (s, plans) => {
        runs += 1;
        const base = runs * 100;
        const model = new Map<string, Stored[]>();
        const versions = plans.map((plan, i) =>
          importVersion({
            uploadedAt: new Date((baseSecond + plan.second) * 1000).toISOString(),
            sequencer: plan.sequencer.toString(16),
            importId: `${i}`.repeat(32),
          }),
        );
        const recordsOf = plans.map((plan, i) => plan.changes.map((c) => recordOf(c, base, i)));
        // Requests land one at a time, in the order the scheduler releases them.
        let queue: Promise<void> = Promise.resolve();
        const land = (apply: () => Promise<void>) => {
          const landed = queue.then(apply);
          queue = landed.catch(() => {});
          return landed;
        };
        const detached = new Set<Promise<unknown>>();
        const running = Promise.all(
          plans.map((plan, i) =>
            runImport(s, plan, {
              version: versions[i]!,
              importId: `${runs}-${i}`,
              records: recordsOf[i]!,
              model,
              land,
              detached,
              label: `import ${i}`,
            }),
          ),
        );
        const results = await s.waitFor(running);
        while (detached.size > 0) await s.waitFor(Promise.all(detached));

        // The latest upload naming each record decides it.
        for (const entity of ENTITY_NAMES)
          for (let id = 1; id <= IDS; id += 1) {
            const naming = plans
              .map((plan, i) => ({
                i,
                c: plan.changes.find((c) => c.entity === entity && c.id === id),
              }))
              .filter((x) => x.c !== undefined);
            if (naming.length === 0) continue;
            const latest = naming.reduce((a, b) => (versions[b.i]! > versions[a.i]! ? b : a));
            const { Item } = await table.client.send(
              new GetCommand({
                TableName: table.tableName,
                Key: { pk: keyOf(entity, base + id), sk: ENTITIES[entity].keys.sort },
                ConsistentRead: true,
              }),
            );
            const seen =
              Item === undefined || Item.deleted === true
                ? 'deleted'
                : entity === 'transaction'
                  ? Item.total_amount
                  : (Item.first_name as string).replace('Mark', '');
            const want = latest.c!.kind === 'delete' ? 'deleted' : mark(latest.i);
            expect(`${entity} ${id}: ${String(seen)}`).toBe(`${entity} ${id}: ${want}`);
          }
        // Each import's report and audit events say what its writes did.
        const replaced = results.map((run, i) =>
          checkImport(recordsOf[i]!, run, versions[i]!, model),
        );
        if (replaced.some((n) => n > 0)) replacedRuns += 1;
      },
    ),
    { numRuns: 40 },
  );
  // The draws reached the case: a write whose answer was lost, then a later file's.
  expect(replacedRuns).toBeGreaterThan(0);
}, 300_000);
