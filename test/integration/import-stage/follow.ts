/**
 * `npm run import -- <file> --stage <name>` / `--stack <name>` (SPEC 9) against a stand-in stack
 * (test/support/stage-drop.ts: a mocked CloudFormation and Step Functions, no emulator of either,
 * the drop in the local S3, the workflow started on the uploaded object as EventBridge would). The
 * command finds the drop, uploads under `incoming/` (in parts when large), finds the execution of
 * its upload and follows it: to the report, or to how it ended without one, or to none having
 * started. The command run as a child process: ./command.ts.
 */
import { jest } from '@jest/globals';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { S3_MIN_PART_BYTES } from '../../../commands/import/drop.ts';
import type { Progress } from '../../../import/progress.ts';
import { importIntoStack } from '../../../commands/import/stage-drop.ts';
import { importIdOf, reportKey } from '../../../import/steps/work-folder.ts';
import { type ImportReport } from '../../../import/steps/step.ts';
import { emptySummary } from '../../../import/summary.ts';
import { s3Client } from '../../../local/s3/s3-client.ts';
import { line, transaction } from '../../fixtures.ts';
import { type FakeExecution } from '../../support/fake-control-plane.ts';
import {
  drop,
  executionFor,
  outputsOf,
  paddedLines,
  QUICK,
  reportOf,
  STACK,
  stackClients,
  startStage,
  useStageDrop,
  watchUploads,
} from '../../support/stage-drop.ts';

useStageDrop();

test("a stage's stack: the drop from its outputs, the file under incoming/, the execution of the upload followed to its report", async () => {
  const executions: FakeExecution[] = [];
  const stage = startStage(executions);
  const progress: Progress[] = [];
  try {
    const file = drop.fileOf(`${line('transaction', transaction({ id: 71 }))}\n`);
    const result = await importIntoStack(STACK, file, (p) => progress.push(p), {
      clients: stackClients(outputsOf(drop.target.importBucketName), executions),
      times: QUICK,
    });
    expect(reportOf(result)).toMatchObject({
      outcome: 'imported',
      counts: { records: 1, transactions: 1 },
      key: expect.stringMatching(/^incoming\/.+\.jsonl$/),
    });
    // The upload said how far it got, then the line followed the workflow.
    const size = Buffer.byteLength(`${line('transaction', transaction({ id: 71 }))}\n`);
    expect(progress).toContainEqual(
      expect.objectContaining({ phase: 'uploading', bytes: { sent: size, total: size } }),
    );
    expect(progress.some((p) => p.phase !== 'uploading')).toBe(true);
    const audit = drop.auditEvents().find((e) => e.kind === 'import-started');
    expect(audit).toMatchObject({ requester: '123456789012', sourceIp: '203.0.113.9' });
  } finally {
    await stage.stop();
  }
}, 120_000);

test("a stage's drop refuses a file under another field's prefix with its line and field (SPEC 6)", async () => {
  const executions: FakeExecution[] = [];
  const stage = startStage(executions);
  try {
    const text = `${line('transaction', transaction({ id: 72, attachment: 'id-photos/1.jpg' }))}\n`;
    const result = await importIntoStack(STACK, drop.fileOf(text), () => {}, {
      clients: stackClients(outputsOf(drop.target.importBucketName), executions),
      times: QUICK,
    });
    expect(reportOf(result)).toMatchObject({
      outcome: 'rejected',
      problems: [
        'line 1: transaction.attachment: must begin with attachments/, where attachment files are kept: the function that serves this record may read no other key',
      ],
      counts: { records: 0 },
    });
  } finally {
    await stage.stop();
  }
}, 120_000);

test('a stack without the drop says so', async () => {
  await expect(
    importIntoStack(STACK, drop.fileOf('\n'), () => {}, { clients: stackClients({}) }),
  ).rejects.toThrow(`stack ${STACK} has no output ImportBucketName: deploy it first`);
  await expect(
    importIntoStack(STACK, drop.fileOf('\n'), () => {}, {
      clients: stackClients({ ImportBucketName: drop.target.importBucketName }),
    }),
  ).rejects.toThrow(`stack ${STACK} has no output ImportStateMachineArn: deploy it first`);
}, 90_000);

test('a file larger than one part goes up in parts (UploadPart) and is imported', async () => {
  const executions: FakeExecution[] = [];
  const stage = startStage(executions);
  const clients = stackClients(outputsOf(drop.target.importBucketName), executions);
  const sent: string[] = [];
  clients.s3.middlewareStack.add(
    (next, context) => (args) => {
      sent.push(context.commandName ?? '');
      return next(args);
    },
    { step: 'initialize' },
  );
  const progress: Progress[] = [];
  try {
    // 7 records of 800 KB each: 5.5 MiB, two parts of S3's least, 5 MiB.
    const file = drop.fileOf(paddedLines(7, 800_000, 7100));
    const result = await importIntoStack(STACK, file, (p) => progress.push(p), {
      clients,
      partBytes: S3_MIN_PART_BYTES,
      times: QUICK,
    });
    expect(reportOf(result)).toMatchObject({ outcome: 'imported', counts: { records: 7 } });
    expect(sent.filter((c) => c === 'CreateMultipartUploadCommand')).toHaveLength(1);
    expect(sent.filter((c) => c === 'UploadPartCommand')).toHaveLength(2);
    expect(sent.filter((c) => c === 'CompleteMultipartUploadCommand')).toHaveLength(1);
    expect(sent).not.toContain('PutObjectCommand');
    // Bytes sent, part by part, of the file's size.
    const uploading = progress.filter((p) => p.phase === 'uploading').map((p) => p.bytes);
    expect(uploading).toHaveLength(2);
    expect(uploading.at(-1)).toEqual({ sent: 5_600_000, total: 5_600_000 });
  } finally {
    await stage.stop();
  }
}, 120_000);

test('the local drop puts a file larger than its 8 MiB part in parts and imports it', async () => {
  const send = jest.spyOn(S3Client.prototype, 'send');
  try {
    // 11 records of 800 KB each: 8.4 MiB, one part of 8 MiB and the rest.
    const report = await drop.drop(paddedLines(11, 800_000, 7200));
    expect(report).toMatchObject({ outcome: 'imported', counts: { records: 11 } });
    const names = send.mock.calls.map(([command]) => command.constructor.name);
    expect(names.filter((n) => n === 'UploadPartCommand')).toHaveLength(2);
    expect(names).toContain('CompleteMultipartUploadCommand');
  } finally {
    send.mockRestore();
  }
}, 120_000);

test("the stage's progress: parts written and their records (and deletes), whole or so far, each whole part read once", async () => {
  const executions: FakeExecution[] = [];
  const progress: Progress[] = [];
  const bucket = drop.target.importBucketName;
  const s3 = s3Client(drop.s3.endpoint);
  const put = (key: string, value: unknown) =>
    s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: JSON.stringify(value) }));
  const seen = async (records: number) => {
    while (!progress.some((p) => p.phase === 'writing' && p.records === records))
      await new Promise((resolve) => setTimeout(resolve, 20));
  };
  const counts = (records: number, deletes: number) => ({
    ...emptySummary(),
    records,
    transactions: records,
    customers: 0,
    deletes,
    notFound: 0,
  });
  // What the workflow's steps leave under work/<import id>/ while they write 3 parts.
  const watch = watchUploads(async (key, size) => {
    const work = `work/${importIdOf(key, 'null')}/`;
    await put(`${work}manifest.json`, [{}, {}, {}]);
    // Verify's verdict: the file's 305 records (and deletes), all checked.
    await put(`${work}problems.json`, { problems: [], problemCount: 0, records: 305 });
    await put(`${work}written/0.json`, { index: 0, ...counts(100, 5) });
    // A part written whole also left its counts under writing/: counted once.
    await put(`${work}writing/0.json`, { index: 0, final: true, ...counts(100, 5) });
    await put(`${work}writing/1.json`, { index: 1, final: false, ...counts(40, 0) });
    executions.push(executionFor(key, size, 'RUNNING'));
    await seen(145);
    await put(`${work}writing/1.json`, { index: 1, final: false, ...counts(60, 0) });
    await seen(165);
    const report: ImportReport = {
      importId: importIdOf(key, 'null'),
      outcome: 'imported',
      key,
      versionId: 'null',
      sha256: null,
      startedAt: null,
      endedAt: new Date().toISOString(),
      counts: counts(0, 0),
      problems: [],
      warnings: [],
      warningCount: 0,
      filesLeft: [],
      filesLeftCount: 0,
      problemCount: 0,
    };
    await put(reportKey(report.importId), report);
  });
  const clients = stackClients(outputsOf(bucket), executions);
  const reads: string[] = [];
  clients.s3.middlewareStack.add(
    (next, context) => (args) => {
      if (context.commandName === 'GetObjectCommand')
        reads.push((args.input as { Key: string }).Key);
      return next(args);
    },
    { step: 'initialize' },
  );
  try {
    const result = await importIntoStack(STACK, drop.fileOf('\n'), (p) => progress.push(p), {
      clients,
      times: QUICK,
    });
    expect(reportOf(result).outcome).toBe('imported');
    const writing = { phase: 'writing', parts: 3, partsDone: 1, total: 305 };
    expect(progress).toContainEqual({ ...writing, records: 145 });
    expect(progress).toContainEqual({ ...writing, records: 165 });
    // The verdict is read once: it does not change.
    expect(reads.filter((k) => k.endsWith('/problems.json'))).toHaveLength(1);
    expect(reads.filter((k) => k.endsWith('/written/0.json'))).toHaveLength(1);
    expect(reads.filter((k) => k.endsWith('/writing/1.json')).length).toBeGreaterThan(1);
    expect(reads.filter((k) => k.endsWith('/writing/0.json'))).toHaveLength(0);
  } finally {
    await watch.stop();
    s3.destroy();
  }
}, 90_000);

describe('an execution that ended without a report: the outcome in words, its ARN, what to do', () => {
  test.each([
    [
      'FAILED',
      'failed',
      /^The import's execution failed \(States\.TaskFailed: WritePart stopped\)/,
    ],
    ['TIMED_OUT', 'timed-out', /^The import's execution timed out/],
    ['ABORTED', 'aborted', /^The import's execution was stopped \(aborted\)/],
  ] as const)(
    '%s',
    async (status, why, first) => {
      const executions: FakeExecution[] = [];
      // The execution is running when first seen, then ends; the workflow never writes a report.
      const watch = watchUploads((key, size) => {
        const execution = executionFor(key, size, 'RUNNING');
        executions.push(execution);
        setTimeout(() => {
          execution.status = status;
          if (status === 'FAILED')
            Object.assign(execution, { error: 'States.TaskFailed', cause: 'WritePart stopped' });
        }, 300);
      });
      try {
        const result = await importIntoStack(STACK, drop.fileOf('\n'), () => {}, {
          clients: stackClients(outputsOf(drop.target.importBucketName), executions),
          times: QUICK,
        });
        expect('unreported' in result).toBe(true);
        if (!('unreported' in result)) return;
        const { unreported } = result;
        expect(unreported.why).toBe(why);
        expect(unreported.executionArn).toBe(executions[0]!.executionArn);
        expect(unreported.lines[0]).toMatch(first);
        expect(unreported.lines).toContain(`Execution: ${executions[0]!.executionArn}`);
        expect(unreported.lines.at(-1)).toContain("Look at the execution's events");
        expect(unreported.lines.at(-1)).toContain(
          'Putting the same file again is safe: records already written are written again, the same.',
        );
      } finally {
        await watch.stop();
      }
    },
    90_000,
  );
});

test("no execution started for the upload (another upload's failed one is not it): what to check", async () => {
  const executions: FakeExecution[] = [
    { ...executionFor('incoming/another-file.jsonl', 1, 'FAILED'), error: 'States.TaskFailed' },
  ];
  // Its 5-minute default wait cut to 0.5 s: the test's own time limit proves it does not wait on.
  const result = await importIntoStack(STACK, drop.fileOf('\n'), () => {}, {
    clients: stackClients(outputsOf(drop.target.importBucketName), executions),
    times: { ...QUICK, startWaitMs: 500 },
  });
  expect('unreported' in result && result.unreported.why).toBe('not-started');
  if (!('unreported' in result)) return;
  expect(result.unreported.executionArn).toBeUndefined();
  const text = result.unreported.lines.join('\n');
  expect(text).toMatch(/^No import started within \d+ s of the upload of s3:\/\/[^/]+\/incoming\//);
  expect(text).toContain('Amazon EventBridge');
  expect(text).toContain(`stack ${STACK}'s EventBridge rule`);
  expect(text).toContain('the key is under incoming/');
}, 90_000);

test('an execution still running past the ceiling is no longer waited for', async () => {
  const executions: FakeExecution[] = [];
  const watch = watchUploads((key, size) => {
    executions.push(executionFor(key, size, 'RUNNING'));
  });
  try {
    const result = await importIntoStack(STACK, drop.fileOf('\n'), () => {}, {
      clients: stackClients(outputsOf(drop.target.importBucketName), executions),
      times: { ...QUICK, ceilingMs: 1000 },
    });
    expect('unreported' in result && result.unreported.why).toBe('still-running');
    if (!('unreported' in result)) return;
    expect(result.unreported.executionArn).toBe(executions[0]!.executionArn);
    expect(result.unreported.lines[0]).toMatch(/^The import's execution is still RUNNING after/);
  } finally {
    await watch.stop();
  }
}, 90_000);
