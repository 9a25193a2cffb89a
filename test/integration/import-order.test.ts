/**
 * SPEC 6, 6.1: the file put later wins, whatever order the writes land in. Two or three imports
 * of overlapping records, each with its own upload (some in the same second), run at once against
 * DynamoDB Local through the writer the import steps use (writeRecords); fast-check's scheduler
 * draws the order in which every request lands, answers that are lost (the writer sends again),
 * and attempts that are killed (their requests still in flight land whenever the scheduler says,
 * and the part is run again from the start, as a retried WritePart or a redrive is). After each
 * run every record is as the latest upload naming it left it, and every import's counts are what
 * a model of the table says its writes found.
 */
import fc from 'fast-check';
import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ENTITIES, type Entity } from '../../core/entities.ts';
import { importVersion, sameSecond } from '../../core/import-version.ts';
import { createTimeCodec } from '../../core/times.ts';
import { emptySummary, type ImportSummary } from '../../import/summary.ts';
import { writeRecords } from '../../import/write-records.ts';
import { type Parsed } from '../../import/checked-lines.ts';
import { createLineParser } from '../../import/records.ts';
import { startTestTable } from '../support/dynamodb.ts';
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

/** A record's stored state as the model keeps it: the version that wrote it, deleted or not. */
interface Stored {
  version: string;
  deleted: boolean;
}

/** The mark each import leaves in a record (which import's copy a reader sees). */
const mark = (importIndex: number) => `${importIndex + 1}0.00`;

function recordOf(c: Change, base: number, importIndex: number): Parsed {
  const id = base + c.id;
  if (c.kind === 'delete')
    return { kind: 'delete', entity: ENTITIES[c.entity], id: BigInt(id), lineNo: 1 };
  const fields =
    c.entity === 'transaction'
      ? transaction({ id, total_amount: mark(importIndex) })
      : customer({ id, first_name: `Mark${mark(importIndex)}` });
  const parsed = parse(line(c.entity, fields));
  if (!parsed.ok || parsed.kind !== 'put') throw new Error('fixture is invalid');
  return { ...parsed, lineNo: 1 };
}

const keyOf = (entity: Entity, id: number) => `${ENTITIES[entity].keys.partition}${id}`;

class Killed extends Error {
  override readonly name = 'Killed';
}

/**
 * One import run through the drawn schedule: its attempts, each a writeRecords over the whole
 * part, with a client whose requests land when the scheduler releases them, one at a time in
 * that order (the model follows them), and whose answers may be lost or cut by a kill.
 */
function runImport(
  s: fc.Scheduler,
  plan: ImportPlan,
  options: {
    version: string;
    records: Parsed[];
    model: Map<string, Stored>;
    land: (apply: () => Promise<void>) => Promise<void>;
    detached: Set<Promise<unknown>>;
    label: string;
  },
) {
  const { version, model } = options;
  let sent = 0;
  /** The model's view of the answer each record's last delivered write had, this attempt. */
  const found = new Map<string, Stored | undefined>();
  const attempt = async (killAfter: number | undefined): Promise<ImportSummary> => {
    let landed = 0;
    let kill: (error: Error) => void = () => {};
    const killed = new Promise<never>((_, reject) => (kill = reject));
    killed.catch(() => {});
    let dead = false;
    const client = {
      send: async (command: PutCommand) => {
        if (dead) throw new Killed('the process was killed');
        const n = sent++;
        const key = command.input.Item!.pk as string;
        let before: Stored | undefined;
        let result: { ok: unknown } | { error: unknown } | undefined;
        // The request is on its way: it lands when the scheduler says, even after a kill.
        const arrival = s.schedule(Promise.resolve(), `${options.label} ${key}`).then(() =>
          options.land(async () => {
            before = model.get(key);
            try {
              result = { ok: await table.client.send(command) };
            } catch (error) {
              result = { error };
            }
            // DynamoDB did as the model of its condition says.
            const item = command.input.Item!;
            const sentVersion = item.v as string;
            const allowed = before === undefined || before.version <= sentVersion;
            expect('ok' in result).toBe(allowed);
            if (allowed) model.set(key, { version: sentVersion, deleted: item.deleted === true });
            landed += 1;
            if (killAfter !== undefined && landed >= killAfter && !dead) {
              dead = true;
              kill(new Killed('the process was killed'));
            }
          }),
        );
        options.detached.add(arrival);
        void arrival.finally(() => options.detached.delete(arrival));
        await Promise.race([arrival, killed]);
        if (dead) throw new Killed('the process was killed');
        if (plan.lost.includes(n))
          throw Object.assign(new Error('the answer was lost'), { name: 'TimeoutError' });
        found.set(key, before);
        if ('error' in result!) throw result.error;
        return result!.ok;
      },
    } as unknown as DynamoDBDocumentClient;
    async function* records() {
      yield* options.records;
    }
    if (killAfter === 0) {
      dead = true;
      throw new Killed('killed before its first request');
    }
    return writeRecords(records(), {
      client,
      tableName: table.tableName,
      version,
      recordsPerGroup: 2,
      concurrency: 2,
    });
  };
  return (async () => {
    for (const killAfter of plan.kills) {
      found.clear();
      try {
        return { summary: await attempt(killAfter), found };
      } catch (error) {
        if (!(error instanceof Killed)) throw error;
      }
    }
    found.clear();
    return { summary: await attempt(undefined), found };
  })();
}

/** The counts the model says an import's last attempt should report, from what each write found. */
function expectedCounts(
  records: Parsed[],
  found: Map<string, Stored | undefined>,
  version: string,
) {
  const counts = emptySummary();
  for (const record of records) {
    const key = `${record.entity.keys.partition}${record.id}`;
    const before = found.get(key);
    if (before !== undefined && before.version !== version && sameSecond(before.version, version))
      counts.sameSecond += 1;
    if (before !== undefined && before.version > version) {
      counts.left += 1;
      continue;
    }
    if (before?.version === version) counts.again += 1;
    if (record.kind === 'delete') {
      counts.deletes += 1;
      if (before?.version !== version && (before === undefined || before.deleted))
        counts.notFound += 1;
    } else {
      counts.records += 1;
      counts[record.entity.name === 'transaction' ? 'transactions' : 'customers'] += 1;
    }
  }
  return counts;
}

let runs = 0;

test('every record ends as the latest upload naming it left it, in every order drawn; counts exact', async () => {
  const baseSecond = Math.floor(Date.now() / 1000);
  await fc.assert(
    fc.asyncProperty(
      fc.scheduler(),
      fc.array(importPlan, { minLength: 2, maxLength: 3 }),
      async (s, plans) => {
        runs += 1;
        const base = runs * 100;
        const model = new Map<string, Stored>();
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
        // Each import's report says what its writes found.
        results.forEach(({ summary, found }, i) =>
          expect(summary).toEqual(expectedCounts(recordsOf[i]!, found, versions[i]!)),
        );
      },
    ),
    { numRuns: 40 },
  );
}, 300_000);
