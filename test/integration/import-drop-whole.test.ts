/**
 * SPEC 6.1 and 9 through the local drop: readers never see a torn record while two imports of
 * the same records run at once (each record ends whole, as one of them wrote it), nor while a
 * part's writer is killed half-way and the engine retries it; the retried import ends in the
 * same state as one never interrupted, with nothing stray in the table.
 *
 * @slow: started first on a fresh clone (test/support/sequencer.js).
 */
import { setTimeout } from 'node:timers/promises';
import type { MiddlewareStack } from '@smithy/types';
import { emptySummary } from '../../import/summary.ts';
import { localStepDeps, runWorkflow } from '../../local/step-functions/import-runner.ts';
import { dropForTests } from '../support/drop.ts';
import type { Entity } from '../support/readers.ts';
import { IMPORT_WRITE_HORIZON_DAYS } from '../../core/retention.ts';
import { importVersion } from '../../core/import-version.ts';
import {
  range,
  targetsOf,
  transactionLine,
  versionLines,
  versionOf,
  type Version,
} from '../support/versions.ts';

const env = dropForTests();

const file = (lines: string[]) => `${lines.join('\n')}\n`;

/**
 * Each test's limit: quiet, the first takes about 19 s and the second 7 s, but beside two busy
 * loops and a synth test in the other worker the first passed 120 s once (the readers, the drops
 * and DynamoDB Local share two cores with everything else). What is asserted is what readers saw,
 * never how fast.
 */
const TEST_TIMEOUT_MS = 300_000;

/** A reader's pause between two reads. */
const READ_PAUSE_MS = 5;

/**
 * Readers in a loop over the targets until stopped: what they saw. Each pauses between reads, so
 * that four of them read through every group the imports write without taking from the imports
 * (in this process, against the same DynamoDB Local) the CPU they are waiting on.
 */
function readWhile(targets: [Entity, number][], deleted: number[]) {
  const seen = { reads: 0, torn: 0, errors: 0, A: 0, B: 0, gone: 0 };
  let reading = true;
  const loops = Array.from({ length: 4 }, async (_, k) => {
    for (let i = k; reading; i += 5) {
      await setTimeout(READ_PAUSE_MS);
      const [entity, id] = targets[i % targets.length]!;
      const r = await env.readers.get(entity, id);
      seen.reads += 1;
      if (r.status === 404 && entity === 'transaction' && deleted.includes(id)) seen.gone += 1;
      else if (r.status !== 200) seen.errors += 1;
      else {
        const v = versionOf(entity, r.data);
        if (v) seen[v] += 1;
        else seen.torn += 1;
      }
    }
  });
  return {
    stop: async () => {
      reading = false;
      await Promise.all(loops);
      return seen;
    },
  };
}

test(
  'two imports at once leave every record whole, as one of them wrote it',
  async () => {
    const set = { txns: range(5001, 20), custs: range(5001, 10), deleted: [] };
    await env.drop.drop(file(versionLines(set, 'A')));
    const readersRun = readWhile(targetsOf(set), []);
    const [a, b] = await Promise.all([
      env.drop.drop(file(versionLines(set, 'A')), { partBytes: 2000, concurrency: 2 }),
      env.drop.drop(file(versionLines(set, 'B')), { partBytes: 2000, concurrency: 2 }),
    ]).finally(() => readersRun.stop());
    const seen = await readersRun.stop();
    console.log(`import-drop two at once: ${JSON.stringify(seen)}`);
    expect([a.outcome, b.outcome]).toEqual(['imported', 'imported']);
    expect(seen).toMatchObject({ torn: 0, errors: 0 });
    expect(seen.reads).toBeGreaterThan(20);
    // The file put later (the higher version) wins every record, whatever order writes landed in.
    const later: Version = b.version! > a.version! ? 'B' : 'A';
    for (const [entity, id] of targetsOf(set)) {
      const r = await env.readers.get(entity, id);
      expect(versionOf(entity, r.data)).toBe(later);
    }
  },
  TEST_TIMEOUT_MS,
);

test('a file put longer ago than deletions are remembered is refused whole, saying why', async () => {
  const deps = localStepDeps(env.drop.target);
  try {
    const input = await env.drop.upload(deps, file([transactionLine(7001, 'A')]));
    const putAt = new Date(Date.now() - (IMPORT_WRITE_HORIZON_DAYS + 1) * 24 * 3600 * 1000);
    const report = await runWorkflow(deps, { ...input, eventTime: putAt.toISOString() });
    expect(report.outcome).toBe('failed');
    expect(report.error).toBe(
      `ImportVersionError: the file was put at ${putAt.toISOString().slice(0, 19)}.000Z, more than ${IMPORT_WRITE_HORIZON_DAYS} days ago: ` +
        'deletions are remembered only that long, so nothing of it is written; put the file again to import it',
    );
    expect(report.counts).toEqual(emptySummary());
  } finally {
    deps.s3.destroy();
    deps.client.destroy();
  }
  expect((await env.readers.get('transaction', 7001)).status).toBe(404);
});

test('a part written past the horizon (a late redrive) writes nothing, saying why', async () => {
  const deps = localStepDeps(env.drop.target);
  const late = importVersion({
    uploadedAt: new Date(
      Date.now() - (IMPORT_WRITE_HORIZON_DAYS + 1) * 24 * 3600 * 1000,
    ).toISOString(),
    importId: 'e'.repeat(32),
  });
  try {
    const input = await env.drop.upload(deps, file([transactionLine(7002, 'A')]));
    // Plan took the fresh upload; the part then runs as a redrive would, past the horizon.
    const report = await runWorkflow(deps, input, {
      wrap: {
        writePart:
          (h) =>
          (event: never, ...rest) =>
            h({ ...(event as object), version: late } as never, ...rest),
      },
    });
    expect(report.outcome).toBe('failed');
    expect(report.error).toMatch(
      new RegExp(
        `ImportVersionError: the file was put at .*, more than ${IMPORT_WRITE_HORIZON_DAYS} days ago`,
      ),
    );
    expect(report.counts).toEqual(emptySummary());
  } finally {
    deps.s3.destroy();
    deps.client.destroy();
  }
  expect((await env.readers.get('transaction', 7002)).status).toBe(404);
});

test(
  'a part whose writer is killed half-way is retried by the engine: same end state, no torn read',
  async () => {
    const set = { txns: range(6001, 30), custs: range(6001, 10), deleted: range(6101, 6) };
    await env.drop.drop(file(versionLines(set, 'A')));
    const deps = localStepDeps(env.drop.target, 3000);
    // The writer dies at its 3rd, 9th and 15th write request: mid-part, with other records of
    // the group in flight. The engine's retry runs the part again.
    const killAt = new Set([3, 9, 15]);
    let writes = 0;
    let killed = 0;
    (deps.client.middlewareStack as MiddlewareStack<object, object>).add(
      (next, context) => async (args) => {
        const name = (context as { commandName?: string }).commandName ?? '';
        if (/UpdateItem/.test(name) && killAt.has((writes += 1))) {
          killed += 1;
          throw Object.assign(new Error('writer killed half-way (test)'), { name: 'Killed' });
        }
        return next(args);
      },
      { step: 'initialize', name: 'killHalfWay' },
    );
    const readersRun = readWhile(targetsOf(set), set.deleted);
    let retried = 0;
    try {
      const input = await env.drop.upload(deps, file(versionLines(set, 'B')));
      const report = await runWorkflow(deps, input, {
        concurrency: 2,
        wrap: {
          writePart: (h) => async (event) => {
            try {
              return await h(event);
            } catch (error) {
              retried += 1;
              throw error;
            }
          },
        },
      });
      expect(report.outcome).toBe('imported');
      // A part run again goes on with the records its earlier attempts did not record (each
      // group's outcomes are saved before the next starts): every record counted once, as a
      // run never killed counts it, none written again (the killed writes never left).
      expect(report.counts).toEqual({
        ...emptySummary(),
        records: 40,
        transactions: 30,
        customers: 10,
        deletes: 6,
        // Put within the same second as the file before it or not (whole seconds, as in AWS).
        sameSecond: expect.any(Number),
      });
      expect(report.writtenAgain).toBeUndefined();
    } finally {
      // Stopped whatever the import did: readers left running would keep the run from ending.
      await readersRun.stop();
      deps.s3.destroy();
      deps.client.destroy();
    }
    const seen = await readersRun.stop();
    console.log(
      `import-drop killed writer: ${killed} kills, ${retried} part attempts failed; ${JSON.stringify(seen)}`,
    );
    expect(killed).toBe(3);
    expect(retried).toBe(3);
    expect(seen).toMatchObject({ torn: 0, errors: 0 });
    for (const [entity, id] of targetsOf(set)) {
      const r = await env.readers.get(entity, id);
      if (set.deleted.includes(id)) expect(r.status).toBe(404);
      else expect(versionOf(entity, r.data)).toBe<Version>('B');
    }
  },
  TEST_TIMEOUT_MS,
);
