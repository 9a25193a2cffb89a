/**
 * The local runner's one transform of the stage's workflow (local/step-functions/import-runner.ts): each Map
 * that reads its items from S3 becomes an inline Map over Plan's `items`; nothing else changes.
 */
import { jest } from '@jest/globals';
import aslValidator from 'asl-validator';
import { importWorkflowDefinition } from '../../stage/import-workflow.ts';
import { ConfigError } from '../../core/env.ts';
import { WRITE_CONCURRENCY } from '../../import/write-records.ts';
import { StateMachine } from 'aws-local-stepfunctions';
import { ImportStopped } from '../../import/steps/step.ts';
import {
  localDefinition,
  localHandlers,
  localStepDeps,
  type Handler,
} from '../../local/step-functions/import-runner.ts';
import { localDropOptionsFromEnv } from '../../commands/import/local-drop.ts';

const stage = importWorkflowDefinition({
  planFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:import-plan',
  checkPartFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:import-check-part',
  verifyFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:import-verify',
  writePartFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:import-write-part',
  reportFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:import-report',
  importBucketName: 'imports',
  alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:alarms',
  partition: 'aws',
  concurrency: 7,
}) as { States: Record<string, Record<string, unknown>> };

test('the Maps over the manifest become inline Maps over Plan items; the rest is the stage definition', () => {
  const before = structuredClone(stage);
  const local = localDefinition(stage) as typeof stage;
  expect(stage).toEqual(before); // the stage's definition is not touched
  const maps = Object.entries(stage.States).filter(([, s]) => s.Type === 'Map');
  expect(maps.map(([name]) => name)).toEqual(['CheckParts', 'WriteParts']);
  for (const [name, map] of maps) {
    expect(map.ItemReader).toBeDefined();
    const { ItemReader, ItemsPath, ItemProcessor, ...same } = local.States[name]!;
    expect(ItemReader).toBeUndefined();
    expect(ItemsPath).toBe('$.plan.items');
    expect((ItemProcessor as { ProcessorConfig: unknown }).ProcessorConfig).toEqual({
      Mode: 'INLINE',
    });
    const { ItemReader: _r, ItemProcessor: stageProcessor, ...stageSame } = map;
    expect(same).toEqual(stageSame);
    expect(same.MaxConcurrency).toBe(7);
    expect((ItemProcessor as { States: unknown }).States).toEqual(
      (stageProcessor as { States: unknown }).States,
    );
  }
  for (const [name, state] of Object.entries(stage.States))
    if (state.Type !== 'Map') expect(local.States[name]).toEqual(state);
});

test("the stage's definition is valid Amazon States Language (asl-validator), Distributed Maps included", () => {
  const result = aslValidator(stage, { checkArn: true, checkPaths: true });
  expect(result.errorsText()).toBe('');
  expect(result.isValid).toBe(true);
  const local = aslValidator(localDefinition(stage), { checkArn: true, checkPaths: true });
  expect(local.errorsText()).toBe('');
});

test("the local drop's settings from the environment: the stage's bounds, unset or empty is the default", () => {
  expect(localDropOptionsFromEnv({})).toEqual({});
  expect(localDropOptionsFromEnv({ IMPORT_CONCURRENCY: '', IMPORT_PART_BYTES: '' })).toEqual({});
  expect(localDropOptionsFromEnv({ IMPORT_CONCURRENCY: '1', IMPORT_PART_BYTES: '4096' })).toEqual({
    concurrency: 1,
    partBytes: 4096,
  });
  expect(localDropOptionsFromEnv({ IMPORT_CONCURRENCY: '1000' })).toEqual({ concurrency: 1000 });
  for (const value of ['0', '1001', '2.5', '-1', 'ten', ' 4', '08'])
    expect(() => localDropOptionsFromEnv({ IMPORT_CONCURRENCY: value })).toThrow(
      new ConfigError(
        `IMPORT_CONCURRENCY must be a whole number from 1 to 1000, got: ${JSON.stringify(value)}`,
      ),
    );
});

test("the local drop's parts share one process's write groups: the direct import's number at once", async () => {
  const deps = localStepDeps({
    s3Endpoint: 'http://127.0.0.1:9',
    importBucketName: 'imports',
    dynamoDbEndpoint: 'http://127.0.0.1:9',
    tableName: 'records',
    displayTimeZone: 'UTC',
    auditFile: '/dev/null',
  });
  let running = 0;
  let most = 0;
  const group = () =>
    deps.writeSlots!(async () => {
      most = Math.max(most, (running += 1));
      await new Promise((resolve) => setTimeout(resolve, 5));
      running -= 1;
    });
  await Promise.all(Array.from({ length: 3 * WRITE_CONCURRENCY }, group));
  expect(most).toBe(WRITE_CONCURRENCY);
  deps.s3.destroy();
  deps.client.destroy();
});

describe("a step's time limit locally is its Task's TimeoutSeconds, as in AWS", () => {
  const fn = 'arn:aws:lambda:us-east-1:000000000000:function:slow';
  const oneTask = (timeoutSeconds: number) => ({
    StartAt: 'Slow',
    States: { Slow: { Type: 'Task', Resource: fn, TimeoutSeconds: timeoutSeconds, End: true } },
  });
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  /** Runs a one-Task machine whose handler takes `ms`; what it saw and how it ended. */
  async function run(timeoutSeconds: number, ms: number) {
    const seen: { remaining?: number; signal?: AbortSignal; abortedAt?: number } = {};
    const started = Date.now();
    const handler: Handler = async (_input, context, signal) => {
      seen.remaining = context?.getRemainingTimeInMillis();
      seen.signal = signal;
      signal?.addEventListener('abort', () => (seen.abortedAt = Date.now() - started));
      await new Promise((resolve) => setTimeout(resolve, ms));
      return { done: true };
    };
    const definition = oneTask(timeoutSeconds);
    const machine = new StateMachine(definition as never, {
      validationOptions: { noValidate: true },
    });
    const execution = machine.run({} as never, {
      overrides: {
        taskResourceLocalHandlers: localHandlers(definition as never, { [fn]: handler }) as never,
      },
    });
    const ended: Promise<{ output?: unknown; error?: string }> = execution.result.then(
      (output) => ({ output }),
      (error: Error) => ({ error: error.message }),
    );
    await jest.advanceTimersByTimeAsync(ms + 1000);
    return { ...seen, ...(await ended) };
  }

  test('a step slower than the interpreter’s 60 s default runs to its end', async () => {
    const result = await run(900, 90_000);
    expect(result.output).toEqual({ done: true });
    expect(result.remaining).toBe(900_000);
    expect(result.signal?.aborted).toBe(false);
  });

  test('a step past its own limit is cut there, and told so: it starts nothing more', async () => {
    const result = await run(120, 300_000);
    expect(result.error).toMatch(/States\.Timeout/);
    expect(result.abortedAt).toBe(120_000);
    expect(result.signal?.reason).toBeInstanceOf(ImportStopped);
  });

  test('a Task without TimeoutSeconds is refused: the interpreter would cut it at 60 s', () => {
    const { TimeoutSeconds, ...untimed } = oneTask(1).States.Slow;
    expect(TimeoutSeconds).toBe(1);
    expect(() =>
      localHandlers({ StartAt: 'Slow', States: { Slow: untimed } } as never, {
        [fn]: async () => ({}),
      }),
    ).toThrow(/sets no TimeoutSeconds/);
  });
});
