/**
 * One upload, one import (SPEC 9, issue 55): EventBridge delivers an event at least once and the
 * rule starts an unnamed execution each time, so two executions of one upload may run. Plan claims
 * the upload for its execution (S3's conditional write, which the local S3 honours as S3 does):
 * the second writes nothing and never replaces the first's report; a failed attempt's cancel
 * marker stops that attempt's parts only, so a redrive of the same execution can finish.
 */
import type { MiddlewareStack } from '@smithy/types';
import { claimKey, importIdOf, readJson, reportKey } from '../../import/steps/work-folder.ts';
import type { ImportReport } from '../../import/steps/step.ts';
import {
  DuplicateExecution,
  localExecutionArn,
  localStepDeps,
  type Handler,
  runWorkflow,
} from '../../local/step-functions/import-runner.ts';
import { line, transaction } from '../fixtures.ts';
import { dropForTests } from '../support/drop.ts';

const env = dropForTests();

const linesOf = (ids: number[]) =>
  `${ids.map((id) => line('transaction', transaction({ id, signature: null }))).join('\n')}\n`;
const ids = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);
/** Bytes per part so that each part holds `records` of these (same-length) lines. */
const partBytesFor = (records: number) => (linesOf([80_000]).length + 1) * records - 1;

/** This import's audit events, by kind. */
const eventsOf = (importId: string) => {
  const events = env.drop.auditEvents().filter((e) => e.importId === importId);
  const of = (kind: string) => events.filter((e) => e.kind === kind);
  return { started: of('import-started'), ended: of('import-ended'), records: of('record') };
};

/** The local table refusing every UpdateItem (a record write) while `refusing` is set. */
function refusingTable(deps: ReturnType<typeof localStepDeps>) {
  const table = { refusing: false };
  (deps.client.middlewareStack as MiddlewareStack<object, object>).add(
    (next, context) => async (args) => {
      const name = (context as { commandName?: string }).commandName ?? '';
      if (table.refusing && /UpdateItem/.test(name))
        throw Object.assign(new Error('the table refused a write (test)'), { name: 'Refused' });
      return next(args);
    },
    { step: 'initialize', name: 'refusingTable' },
  );
  return table;
}

test('two executions of one upload at once: the second writes nothing, the report is the first one', async () => {
  const deps = localStepDeps(env.drop.target);
  try {
    const txnIds = ids(81_000, 3);
    const input = await env.drop.upload(deps, linesOf(txnIds));
    const importId = importIdOf(input.key, input.versionId);
    // The first execution claims the upload, then waits (before its first check) while the
    // second, started by hand with the same input as a repeated event would start it, runs.
    let planned!: () => void;
    const claimed = new Promise<void>((resolve) => (planned = resolve));
    let go!: () => void;
    const gate = new Promise<void>((resolve) => (go = resolve));
    const first = runWorkflow(deps, input, {
      execution: { name: 'first' },
      wrap: {
        checkPart: (h) => async (event, context, signal) => {
          planned();
          await gate;
          return h(event, context, signal);
        },
      },
    });
    await claimed;
    try {
      const second = await runWorkflow(deps, input, { execution: { name: 'second' } }).catch(
        (error: unknown) => error,
      );
      expect(second).toBeInstanceOf(DuplicateExecution);
      expect((second as Error).message).toContain(localExecutionArn('first'));
      // Nothing of the second: no report, no audit event, the claim still the first's.
      expect(await readJson(deps.s3, input.bucket, reportKey(importId))).toBeUndefined();
      expect(eventsOf(importId)).toEqual({ started: [expect.anything()], ended: [], records: [] });
      expect(await readJson(deps.s3, input.bucket, claimKey(importId))).toMatchObject({
        execution: localExecutionArn('first'),
      });
    } finally {
      go(); // the first goes on, whatever the second did
    }
    const report = await first;
    expect(report).toMatchObject({ outcome: 'imported', counts: { records: 3 } });
    const events = eventsOf(importId);
    expect([events.started.length, events.ended.length, events.records.length]).toEqual([1, 1, 3]);
    for (const id of txnIds) expect((await env.readers.get('transaction', id)).status).toBe(200);
  } finally {
    deps.s3.destroy();
    deps.client.destroy();
  }
}, 60_000);

test("a second execution whose Plan fails never replaces the first's report", async () => {
  const deps = localStepDeps(env.drop.target);
  try {
    const input = await env.drop.upload(deps, linesOf([82_000]));
    const first = await runWorkflow(deps, input, { execution: { name: 'first-of-two' } });
    expect(first.outcome).toBe('imported');
    // A repeated event whose Plan cannot read the bucket: its Catch goes to Report, which finds
    // the upload claimed by the first execution, writes nothing and says so (no alert follows).
    const reported: unknown[] = [];
    const again = await runWorkflow(deps, input, {
      execution: { name: 'second-of-two' },
      wrap: {
        plan: () => async () => {
          throw new Error('plan cannot reach the bucket (test)');
        },
        report: (h) =>
          (async (event, context, signal) => {
            const result = await h(event as never, context, signal);
            reported.push(result);
            return result;
          }) as Handler,
      },
    });
    expect(again).toEqual(first);
    expect(reported).toEqual([
      expect.objectContaining({ claimedBy: localExecutionArn('first-of-two') }),
    ]);
    const events = eventsOf(first.importId);
    expect([events.started.length, events.ended.length]).toEqual([1, 1]);
  } finally {
    deps.s3.destroy();
    deps.client.destroy();
  }
}, 60_000);

test('a redrive after a failed Report: its parts are not stopped by the failed attempt, and it finishes', async () => {
  const deps = { ...localStepDeps(env.drop.target, partBytesFor(5)), writeConcurrency: 1 };
  const table = refusingTable(deps);
  try {
    const txnIds = ids(83_000, 10);
    const input = await env.drop.upload(deps, linesOf(txnIds));
    table.refusing = true;
    const failed = await runWorkflow(deps, input, { execution: { name: 'redriven' } });
    expect(failed).toMatchObject({ outcome: 'failed', error: expect.stringMatching(/Refused/) });
    // The table takes writes again; the same execution is redriven (locally: run again whole,
    // Plan passing its own claim), after the failed Report's cancel marker.
    table.refusing = false;
    const report = await runWorkflow(deps, input, {
      execution: { name: 'redriven', redriveCount: 1 },
    });
    expect(report).toMatchObject({
      outcome: 'imported',
      counts: { records: txnIds.length },
      parts: { total: 2, written: [0, 1] },
    });
    const written = await readJson<ImportReport>(deps.s3, input.bucket, reportKey(report.importId));
    expect(written?.outcome).toBe('imported');
    for (const id of txnIds) expect((await env.readers.get('transaction', id)).status).toBe(200);
  } finally {
    deps.s3.destroy();
    deps.client.destroy();
  }
}, 90_000);
