/**
 * The workflow's control flow (stage/import-workflow.ts) run by a real ASL interpreter
 * (aws-local-stepfunctions) in its local form, each Task a stub that records its call: which
 * states run for a valid file, a rejected one, a step that throws and a file already imported,
 * and what the alarm topic is told. The steps themselves are tested through the drop
 * (test/integration/import-drop*.test.ts); reading items from S3 by the template tests.
 */
import { ExecutionError, StateMachine } from 'aws-local-stepfunctions';
import { IMPORT_TIMEOUT_SECONDS } from '../../import/steps/step.ts';
import { importWorkflowDefinition } from '../../stage/import-workflow.ts';
import { localDefinition } from '../../local/step-functions/import-runner.ts';

const arn = (name: string) => `arn:aws:lambda:eu-west-1:123456789012:function:${name}`;
const stage = (concurrency: number) =>
  importWorkflowDefinition({
    planFunctionArn: arn('plan'),
    checkPartFunctionArn: arn('check-part'),
    verifyFunctionArn: arn('verify'),
    writePartFunctionArn: arn('write-part'),
    reportFunctionArn: arn('report'),
    importBucketName: 'imports',
    alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:alarms',
    partition: 'aws',
    concurrency,
  });
const definition = localDefinition(stage(2));

const input = { bucket: 'imports', key: 'incoming/a.jsonl', versionId: 'v1' };
const IMPORT_ID = 'import-1';
const EXECUTION = 'arn:aws:states:eu-west-1:123456789012:execution:import:e1';
const VERSION = '0tp6irc00000000000001A21ED73E97438db8b73523';

interface Stubs {
  valid?: boolean;
  alreadyImported?: boolean;
  /** Another execution of the upload holds its claim. */
  claimedBy?: string;
  /** A state whose every call throws. */
  throwIn?: string;
  /** Report found the upload claimed by another execution. */
  reportClaimedBy?: string;
}

/** Runs the workflow with stub Tasks; resolves with the Task calls in order and how it ended. */
async function run(stubs: Stubs = {}) {
  const calls: { state: string; input: Record<string, unknown> }[] = [];
  const step =
    (state: string, result: (input: Record<string, unknown>) => unknown) =>
    async (stepInput: unknown) => {
      const event = stepInput as Record<string, unknown>;
      calls.push({ state, input: event });
      if (stubs.throwIn === state) throw new Error(`${state} broke`);
      return result(event);
    };
  const handlers = {
    Plan: step('Plan', (e) => ({
      importId: IMPORT_ID,
      version: VERSION,
      key: e.key,
      sha256: 'abc',
      parts: 2,
      manifestKey: 'work/import-1/manifest.json',
      startedAt: '2026-11-25T00:00:00.000Z',
      items: stubs.alreadyImported || stubs.claimedBy ? [] : [{ index: 0 }, { index: 1 }],
      ...(stubs.alreadyImported ? { alreadyImported: true } : {}),
      ...(stubs.claimedBy ? { claimedBy: stubs.claimedBy } : {}),
    })),
    CheckPart: step('CheckPart', (e) => ({ index: (e.part as { index: number }).index })),
    Verify: step('Verify', () => ({ valid: stubs.valid ?? true, problems: 0, records: 2 })),
    WritePart: step('WritePart', (e) => ({ index: (e.part as { index: number }).index })),
    Report: step('Report', (e) => ({
      importId: IMPORT_ID,
      outcome: e.outcome,
      reportKey: `reports/${IMPORT_ID}.json`,
      ...(stubs.reportClaimedBy ? { claimedBy: stubs.reportClaimedBy } : {}),
    })),
    Alert: step('Alert', () => ({ MessageId: 'm' })),
  };
  const machine = new StateMachine(definition as never, {
    validationOptions: { noValidate: true },
  });
  const execution = machine.run(input as never, {
    context: { Execution: { Id: EXECUTION, RedriveCount: 0 } } as never,
    overrides: {
      taskResourceLocalHandlers: handlers as never,
      retryIntervalOverrides: { Plan: 0, CheckPart: 0, Verify: 0, WritePart: 0, Report: 0 },
    },
  });
  let ended: 'succeeded' | string;
  try {
    await execution.result;
    ended = 'succeeded';
  } catch (error) {
    if (!(error instanceof ExecutionError)) throw error;
    ended = `failed: ${error.message}`;
  }
  const states = calls.map((c) => c.state);
  return { calls, states, ended, of: (s: string) => calls.filter((c) => c.state === s) };
}

test('a valid file: checked, verified, written, reported as imported; no alert', async () => {
  const { states, ended, of } = await run();
  expect(ended).toBe('succeeded');
  expect(states.filter((s) => s !== 'CheckPart' && s !== 'WritePart')).toEqual([
    'Plan',
    'Verify',
    'Report',
  ]);
  expect(of('CheckPart')).toHaveLength(2);
  expect(of('WritePart')).toHaveLength(2);
  // Every check before the first write: nothing is written unless the whole file is valid.
  expect(states.lastIndexOf('CheckPart')).toBeLessThan(states.indexOf('Verify'));
  expect(states.indexOf('WritePart')).toBeGreaterThan(states.indexOf('Verify'));
  expect(of('Report')[0]!.input.outcome).toBe('imported');
  expect(of('WritePart')[0]!.input).toMatchObject({ importId: IMPORT_ID, ...input });
  // Every part writes the version Plan fixed from the upload.
  expect(of('WritePart').map((c) => c.input.version)).toEqual([VERSION, VERSION]);
});

test('an invalid file: nothing written, reported as rejected, the alarm topic told its import id', async () => {
  const { states, ended, of } = await run({ valid: false });
  expect(ended).toMatch(/^failed: .*The import was not imported whole/);
  expect(of('WritePart')).toHaveLength(0);
  expect(states.slice(-2)).toEqual(['Report', 'Alert']);
  expect(of('Report')[0]!.input.outcome).toBe('rejected');
  expect(of('Alert')[0]!.input.Message).toBe(
    `Import ${IMPORT_ID} ended rejected: see reports/${IMPORT_ID}.json in the import bucket`,
  );
});

test.each(['Plan', 'CheckPart', 'Verify', 'WritePart'])(
  'a %s that keeps failing: retried, then reported as failed with its error, and alerted',
  async (broken) => {
    const { ended, of, states } = await run({ throwIn: broken });
    expect(ended).toMatch(/^failed: .*The import was not imported whole/);
    // The first try and the retries of States.TaskFailed (3), each recorded; a part's retries
    // write the same version as its first try.
    expect(of(broken).length).toBeGreaterThanOrEqual(4);
    if (broken === 'WritePart')
      expect(new Set(of(broken).map((c) => c.input.version))).toEqual(new Set([VERSION]));
    const report = of('Report');
    expect(report).toHaveLength(1);
    expect(report[0]!.input).toMatchObject({ outcome: 'failed', ...input });
    expect(JSON.stringify(report[0]!.input.error)).toContain(`${broken} broke`);
    expect(states.at(-1)).toBe('Alert');
    if (broken !== 'WritePart') expect(of('WritePart')).toHaveLength(0);
  },
);

test('a version already imported: nothing checked or written again, no new report', async () => {
  const { states, ended } = await run({ alreadyImported: true });
  expect(ended).toBe('succeeded');
  expect(states).toEqual(['Plan']);
});

test('a hung import ends at the workflow timeout (the timed-out alarm fires), hours past the backfill', () => {
  expect(stage(10).TimeoutSeconds).toBe(IMPORT_TIMEOUT_SECONDS);
  // docs/performance.md: the 18-million-record backfill, about 1 h 3 min with no settings.
  expect(IMPORT_TIMEOUT_SECONDS).toBeGreaterThanOrEqual(4 * 3600);
  expect(IMPORT_TIMEOUT_SECONDS).toBeLessThanOrEqual(24 * 3600);
});

test('every step is told its execution: Plan claims the upload for it, parts and Report know their attempt', async () => {
  const { of } = await run({ throwIn: 'WritePart' });
  expect(of('Plan')[0]!.input).toMatchObject({ ...input, execution: { id: EXECUTION } });
  for (const part of of('WritePart'))
    expect(part.input).toMatchObject({ execution: EXECUTION, redriveCount: 0 });
  expect(of('Report')[0]!.input).toMatchObject({ redriveCount: 0 });
  expect((of('Report')[0]!.input.input as { execution: unknown }).execution).toEqual({
    id: EXECUTION,
  });
});

test('a second execution whose Plan failed before it found the claim: Report finds it, no alert', async () => {
  const { states, ended } = await run({
    throwIn: 'Plan',
    reportClaimedBy: 'arn:aws:states:eu-west-1:1:execution:import:e0',
  });
  expect(ended).toBe('succeeded');
  expect(states.at(-1)).toBe('Report');
});

test('a second execution of the upload (its claim held by another): nothing checked, written or reported', async () => {
  const { states, ended } = await run({
    claimedBy: 'arn:aws:states:eu-west-1:1:execution:import:e0',
  });
  expect(ended).toBe('succeeded');
  expect(states).toEqual(['Plan']);
});
