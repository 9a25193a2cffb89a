/**
 * A stand-in for a stage's stack around the local drop, for test/integration/import-stage.test.ts:
 * its outputs from a mocked CloudFormation, its executions from a mocked Step Functions, and the
 * workflow started on each upload as EventBridge would (the local runner). Started once
 * (useStageDrop), and this live binding is set by its beforeAll.
 */
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { DescribeExecutionCommand, ListExecutionsCommand, SFNClient } from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { type StackImportResult } from '../../commands/import/stage-drop.ts';
import { type ImportReport } from '../../import/steps/step.ts';
import { BASE_STACK_NAME } from '../../stage/stage.ts';
import { localStepDeps, runWorkflow } from '../../local/step-functions/import-runner.ts';
import { s3Client } from '../../local/s3/s3-client.ts';
import { transaction } from '../fixtures.ts';
import { startTestDrop } from './drop.ts';
import { type FakeExecution } from './fake-control-plane.ts';

export let drop: Awaited<ReturnType<typeof startTestDrop>>;

/** Starts the local drop before the file's tests, stops it after them. */

export function useStageDrop(): void {
  beforeAll(async () => {
    drop = await startTestDrop();
  }, 90_000);
  afterAll(async () => drop?.stop());
}

export const STACK = `${BASE_STACK_NAME}-test`;
export const STATE_MACHINE_ARN =
  'arn:aws:states:eu-west-1:123456789012:stateMachine:ImportWorkflow';
const executionArn = (n: number) =>
  `arn:aws:states:eu-west-1:123456789012:execution:ImportWorkflow:test-${n}`;
const CREDENTIALS = { accessKeyId: 'test', secretAccessKey: 'test' };
/** The waits of a test: a poll every 50 ms, and no minute-long waits. */
export const QUICK = { pollMs: 50, startWaitMs: 10_000, ceilingMs: 60_000 };

export const outputsOf = (bucket: string) => ({
  ImportBucketName: bucket,
  ImportStateMachineArn: STATE_MACHINE_ARN,
});

/**
 * The clients the command makes, answering for `stackName` only: CloudFormation with these
 * outputs, Step Functions with `executions` (as EventBridge started them), S3 the local one.
 */
export function stackClients(
  outputs: Record<string, string>,
  executions: FakeExecution[] = [],
  stackName = STACK,
) {
  const cfn = new CloudFormationClient({ region: 'eu-west-1', credentials: CREDENTIALS });
  // Any other stack does not exist (the more specific rule is matched first).
  mockClient(cfn)
    .on(DescribeStacksCommand)
    .rejects(Object.assign(new Error('Stack does not exist'), { name: 'ValidationError' }))
    .on(DescribeStacksCommand, { StackName: stackName })
    .resolves({
      Stacks: [
        {
          StackName: stackName,
          StackStatus: 'UPDATE_COMPLETE',
          CreationTime: new Date(),
          Outputs: Object.entries(outputs).map(([OutputKey, OutputValue]) => ({
            OutputKey,
            OutputValue,
          })),
        },
      ],
    });
  const sfn = new SFNClient({ region: 'eu-west-1', credentials: CREDENTIALS });
  mockClient(sfn)
    .on(ListExecutionsCommand, { stateMachineArn: STATE_MACHINE_ARN })
    .callsFake(() => ({
      // Newest first, as Step Functions lists them.
      executions: [...executions].reverse().map(({ input: _input, ...listed }) => listed),
    }))
    .on(DescribeExecutionCommand)
    .callsFake(({ executionArn: arn }: { executionArn: string }) => {
      const found = executions.find((e) => e.executionArn === arn);
      if (!found)
        throw Object.assign(new Error('no such execution'), { name: 'ExecutionDoesNotExist' });
      return { ...found };
    });
  return { cfn, s3: s3Client(drop.s3.endpoint), sfn };
}

/** Each new object under incoming/ handed to `onUpload`, as the EventBridge rule would be. */
export function watchUploads(onUpload: (key: string, size: number) => Promise<void> | void) {
  const s3 = s3Client(drop.s3.endpoint);
  const bucket = drop.target.importBucketName;
  const started = new Set<string>();
  let running = true;
  const loop = (async () => {
    // Objects already there belong to earlier tests.
    const before = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'incoming/' }));
    for (const { Key } of before.Contents ?? []) if (Key) started.add(Key);
    while (running) {
      const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'incoming/' }));
      for (const { Key, Size } of page.Contents ?? []) {
        if (!Key || started.has(Key)) continue;
        started.add(Key);
        await onUpload(Key, Size ?? 0);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      s3.destroy();
    },
  };
}

let executionCount = 0;
/** An execution of the workflow for an upload, as EventBridge starts it: its input the event's. */
export function executionFor(
  key: string,
  size: number,
  status: FakeExecution['status'],
): FakeExecution {
  return {
    executionArn: executionArn((executionCount += 1)),
    stateMachineArn: STATE_MACHINE_ARN,
    status,
    startDate: new Date(),
    input: JSON.stringify({
      bucket: drop.target.importBucketName,
      key,
      versionId: 'null',
      size,
      requester: '123456789012',
      sourceIp: '203.0.113.9',
      s3RequestId: 'TEST',
      eventTime: new Date().toISOString(),
    }),
  };
}

/** The stage: each upload starts an execution that runs the workflow (the local runner). */
export function startStage(executions: FakeExecution[]) {
  const deps = localStepDeps(drop.target);
  const watch = watchUploads(async (key, size) => {
    const execution = executionFor(key, size, 'RUNNING');
    executions.push(execution);
    const report = await runWorkflow(deps, JSON.parse(execution.input) as never);
    execution.status = report.outcome === 'imported' ? 'SUCCEEDED' : 'FAILED';
  });
  return {
    stop: async () => {
      await watch.stop();
      deps.s3.destroy();
      deps.client.destroy();
    },
  };
}

/** Lines whose records take `bytes` each, padded with JSON's own whitespace: a large file of few records. */
export function paddedLines(count: number, bytes: number, firstId: number): string {
  let text = '';
  for (let i = 0; i < count; i += 1) {
    const record = JSON.stringify(transaction({ id: firstId + i }));
    const pad = ' '.repeat(bytes - record.length - '{"transaction":}\n'.length);
    text += `{"transaction":${pad}${record}}\n`;
  }
  return text;
}

export const reportOf = (result: StackImportResult): ImportReport => {
  if (!('report' in result)) throw new Error(result.unreported.lines.join('\n'));
  return result.report;
};
