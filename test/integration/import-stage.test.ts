/**
 * `npm run import -- <file> --stage <name>` (SPEC 9) against a stand-in stage: the stack's
 * outputs from a mocked CloudFormation (no emulator of it runs here), the drop in the local S3,
 * and the stage's workflow started on the uploaded object as EventBridge would (the local
 * runner). The command finds the bucket, uploads under `incoming/`, follows and returns the report.
 */
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import type { Progress } from '../../import/drop';
import { importIntoStage } from '../../import/stage-drop';
import { localStepDeps, runWorkflow } from '../../local/import-runner';
import { s3Client } from '../../local/s3-client';
import { line, transaction } from '../fixtures';
import { startTestDrop } from '../support/drop';

let drop: Awaited<ReturnType<typeof startTestDrop>>;

beforeAll(async () => {
  drop = await startTestDrop();
}, 90_000);
afterAll(async () => drop?.stop());

function stageClients(outputs: { OutputKey: string; OutputValue: string }[]) {
  const cfn = new CloudFormationClient({
    region: 'eu-west-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  // Any other stack does not exist (the more specific rule is matched first).
  mockClient(cfn)
    .on(DescribeStacksCommand)
    .rejects(Object.assign(new Error('Stack does not exist'), { name: 'ValidationError' }))
    .on(DescribeStacksCommand, { StackName: 'CurrencyExchangeReadApi-test' })
    .resolves({
      Stacks: [
        {
          StackName: 'CurrencyExchangeReadApi-test',
          StackStatus: 'UPDATE_COMPLETE',
          CreationTime: new Date(),
          Outputs: outputs,
        },
      ],
    });
  return { cfn, s3: s3Client(drop.s3.endpoint) };
}

/** The stage: each new object under incoming/ starts the workflow, as the EventBridge rule does. */
function startStage() {
  const deps = localStepDeps(drop.target);
  const bucket = drop.target.importBucketName;
  const started = new Set<string>();
  let running = true;
  const loop = (async () => {
    while (running) {
      const page = await deps.s3.send(
        new ListObjectsV2Command({ Bucket: bucket, Prefix: 'incoming/' }),
      );
      for (const { Key, Size } of page.Contents ?? []) {
        if (!Key || started.has(Key)) continue;
        started.add(Key);
        await runWorkflow(deps, {
          bucket,
          key: Key,
          versionId: 'null',
          size: Size ?? 0,
          requester: '123456789012',
          sourceIp: '203.0.113.9',
          s3RequestId: 'TEST',
          eventTime: new Date().toISOString(),
        });
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      deps.s3.destroy();
      deps.client.destroy();
    },
  };
}

test('--stage: the bucket from the stack output, the file under incoming/, the report followed', async () => {
  const stage = startStage();
  const progress: Progress[] = [];
  try {
    const file = drop.fileOf(`${line('transaction', transaction({ id: 71 }))}\n`);
    const report = await importIntoStage(
      'test',
      file,
      (p) => progress.push(p),
      stageClients([{ OutputKey: 'ImportBucketName', OutputValue: drop.target.importBucketName }]),
    );
    expect(report).toMatchObject({
      outcome: 'imported',
      counts: { records: 1, transactions: 1 },
      key: expect.stringMatching(/^incoming\/.+\.jsonl$/),
    });
    // The first look finds no report yet: the progress line says where the import is.
    expect(progress.length).toBeGreaterThan(0);
    const audit = drop.auditEvents().find((e) => e.kind === 'import-started');
    expect(audit).toMatchObject({ requester: '123456789012', sourceIp: '203.0.113.9' });
  } finally {
    await stage.stop();
  }
}, 60_000);

test('--stage: a stack without the drop says so', async () => {
  await expect(
    importIntoStage('test', drop.fileOf('\n'), () => {}, stageClients([])),
  ).rejects.toThrow(
    'stack CurrencyExchangeReadApi-test has no output ImportBucketName: deploy it first',
  );
}, 30_000);
