/**
 * `npm run import -- <file> --stage <name>` / `--stack <name>` (SPEC 9) against a stand-in stack
 * (test/support/stage-drop.ts: a mocked CloudFormation and Step Functions, no emulator of either,
 * the drop in the local S3, the workflow started on the uploaded object as EventBridge would). The
 * command finds the drop, uploads under `incoming/` (in parts when large), finds the execution of
 * its upload and follows it: to the report, or to how it ended without one, or to none having
 * started. The command run as a child process: below.
 */
import { jest } from '@jest/globals';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { S3_MIN_PART_BYTES } from '../../commands/import/drop.ts';
import type { Progress } from '../../import/progress.ts';
import { importIntoStack } from '../../commands/import/stage-drop.ts';
import { claimKey, importIdOf, reportKey, type Claim } from '../../import/steps/work-folder.ts';
import type { ImportReport } from '../../import/steps/step.ts';
import { emptySummary } from '../../import/summary.ts';
import { s3Client, S3RVER_CREDENTIALS } from '../../local/s3/s3-client.ts';
import { line, transaction, customer } from '../fixtures.ts';
import { type FakeExecution, startFakeControlPlane } from '../support/fake-control-plane.ts';
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
} from '../support/stage-drop.ts';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../core/project-root.ts';
import { BASE_STACK_NAME } from '../../stage/stage.ts';
import { CLEAN_ENV } from '../support/clean-env.ts';

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
      uploadPartBytes: S3_MIN_PART_BYTES,
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
      lookupWarnings: [],
      lookupWarningCount: 0,
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

test("a repeated event's second execution ends at once: the command follows the one that holds the claim", async () => {
  const executions: FakeExecution[] = [];
  const s3 = s3Client(drop.s3.endpoint);
  const bucket = drop.target.importBucketName;
  const watch = watchUploads(async (key, size) => {
    // The first execution claimed the upload and runs; the second, newest, found the claim held.
    const holder = executionFor(key, size, 'RUNNING');
    const importId = importIdOf(key, 'null');
    const claim: Claim = { execution: holder.executionArn, claimedAt: new Date().toISOString() };
    await s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: claimKey(importId),
        Body: JSON.stringify(claim),
      }),
    );
    executions.push(holder, executionFor(key, size, 'SUCCEEDED'));
    setTimeout(() => {
      const report = { importId, outcome: 'imported', counts: emptySummary() };
      void s3
        .send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: reportKey(importId),
            Body: JSON.stringify(report),
          }),
        )
        .then(() => (holder.status = 'SUCCEEDED'));
    }, 500);
  });
  try {
    const result = await importIntoStack(STACK, drop.fileOf('\n'), () => {}, {
      clients: stackClients(outputsOf(bucket), executions),
      times: QUICK,
    });
    expect(reportOf(result)).toMatchObject({ outcome: 'imported' });
  } finally {
    await watch.stop();
    s3.destroy();
  }
}, 90_000);

/**
 * `npm run import -- <file> --stage <name>` / `--stack <name>` (SPEC 9): the command itself
 * (bin/import.ts) run as a child process against a fake control plane
 * (test/support/fake-control-plane.ts) and the drop in the local S3, the stage's workflow started
 * on the upload as EventBridge would (test/support/stage-drop.ts): which stack it asks for, its
 * usage, and what it prints when an import ends without being whole. How the import follows the
 * upload to its report: above.
 */

describe('the command (bin/import.ts) against a deployed stack', () => {
  const dir = mkdtempSync(join(tmpdir(), 'import-stack-'));
  let aws: Awaited<ReturnType<typeof startFakeControlPlane>>;
  beforeAll(async () => {
    aws = await startFakeControlPlane();
  });
  afterAll(async () => {
    await aws?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** `npm run import -- <args>` with the AWS endpoints of the fakes and the local S3. */
  function run(args: string[]) {
    const child = spawn(process.execPath, ['bin/import.ts', ...args], {
      cwd: PROJECT_ROOT,
      env: {
        ...CLEAN_ENV,
        LOCAL_DATA_DIR: join(dir, 'no-local-rig'),
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
        AWS_CONFIG_FILE: join(dir, 'none'),
        AWS_SHARED_CREDENTIALS_FILE: join(dir, 'none'),
        AWS_ENDPOINT_URL_CLOUDFORMATION: aws.endpoint,
        AWS_ENDPOINT_URL_SFN: aws.endpoint,
        AWS_ENDPOINT_URL_S3: drop.s3.endpoint,
        // s3rver takes no flexible checksums.
        AWS_REQUEST_CHECKSUM_CALCULATION: 'WHEN_REQUIRED',
        AWS_RESPONSE_CHECKSUM_VALIDATION: 'WHEN_REQUIRED',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) =>
      child.on('close', (status) => resolve({ status, stdout, stderr })),
    );
  }

  const fileOf = (name: string, text: string) => {
    const file = join(dir, name);
    writeFileSync(file, text);
    return file;
  };

  test('--stack <name> imports into that stack: here the default stack, CurrencyExchangeReadApi', async () => {
    aws.stacks.set(BASE_STACK_NAME, outputsOf(drop.target.importBucketName));
    const stage = startStage(aws.executions);
    try {
      const file = fileOf(
        'default-stack.jsonl',
        `${line('transaction', transaction({ id: 7301 }))}\n${line('customer', customer({ id: 7301 }))}\n`,
      );
      const r = await run([file, '--stack', BASE_STACK_NAME]);
      expect(r.stderr).not.toContain('Import failed');
      expect(r.status).toBe(0);
      expect(r.stdout).toBe(
        `Imported 2 records (1 transaction, 1 customer) from default-stack.jsonl into stack ${BASE_STACK_NAME}\n`,
      );
      expect(aws.stacksAsked.at(-1)).toBe(BASE_STACK_NAME);
    } finally {
      await stage.stop();
    }
  }, 120_000);

  test('--stage <name> is the stack CurrencyExchangeReadApi-<name>', async () => {
    const r = await run([fileOf('stage.jsonl', '\n'), '--stage', 'nowhere']);
    expect(r.status).toBe(1);
    expect(aws.stacksAsked.at(-1)).toBe(`${BASE_STACK_NAME}-nowhere`);
    expect(r.stderr).toContain(`${BASE_STACK_NAME}-nowhere does not exist`);
  }, 90_000);

  test('both flags, or a flag without its name: usage, exit 2, nothing asked', async () => {
    const file = fileOf('usage.jsonl', '\n');
    const asked = aws.stacksAsked.length;
    for (const args of [
      [file, '--stage', 'dev', '--stack', BASE_STACK_NAME],
      [file, '--stack'],
      [file, '--stage'],
      [file, '--stack', '--stage', 'dev'],
    ]) {
      const r = await run(args);
      expect({ args, status: r.status, stderr: r.stderr }).toEqual({
        args,
        status: 2,
        stderr: 'Usage: npm run import -- <file.jsonl> [--stage <name> | --stack <name>]\n',
      });
    }
    expect(aws.stacksAsked.length).toBe(asked);
  }, 120_000);

  test('a failed import: the last line says what was written, of how many parts, and what to do', async () => {
    aws.stacks.set(BASE_STACK_NAME, outputsOf(drop.target.importBucketName));
    // The workflow stopped after writing two parts of four: its Report step's report.
    const s3 = s3Client(drop.s3.endpoint);
    const watch = watchUploads(async (key, size) => {
      const failed: ImportReport = {
        importId: importIdOf(key, 'null'),
        outcome: 'failed',
        key,
        versionId: 'null',
        sha256: 'a'.repeat(64),
        startedAt: new Date().toISOString(),
        endedAt: new Date().toISOString(),
        counts: {
          ...emptySummary(),
          records: 120,
          transactions: 100,
          customers: 20,
          deletes: 3,
          notFound: 1,
        },
        problems: [],
        warnings: [],
        warningCount: 0,
        lookupWarnings: [],
        lookupWarningCount: 0,
        filesLeft: [],
        filesLeftCount: 0,
        problemCount: 0,
        error: 'part 1 was not written',
        parts: { total: 4, written: [0, 2] },
      };
      await s3.send(
        new PutObjectCommand({
          Bucket: drop.target.importBucketName,
          Key: reportKey(failed.importId),
          Body: JSON.stringify(failed),
        }),
      );
      aws.executions.push(executionFor(key, size, 'FAILED'));
    });
    try {
      const r = await run([fileOf('failed.jsonl', '\n'), '--stack', BASE_STACK_NAME]);
      expect(r.status).toBe(1);
      expect(r.stdout).toBe('');
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines).toContain('The import failed: part 1 was not written');
      expect(lines.at(-1)).toBe(
        'Written before it stopped: 120 records (100 transactions, 20 customers), deleted 3 (1 of them not there); ' +
          '2 of 4 parts written whole. Putting the same file again is safe: records already written are written again, the same.',
      );
    } finally {
      await watch.stop();
      s3.destroy();
    }
  }, 120_000);

  test('an execution that failed without a report: the command says so, with its ARN, exit 1', async () => {
    aws.stacks.set(BASE_STACK_NAME, outputsOf(drop.target.importBucketName));
    const watch = watchUploads((key, size) => {
      aws.executions.push({
        ...executionFor(key, size, 'FAILED'),
        error: 'States.Runtime',
        cause: 'An error occurred while executing the state Plan',
      });
    });
    try {
      const r = await run([fileOf('no-report.jsonl', '\n'), '--stack', BASE_STACK_NAME]);
      expect(r.status).toBe(1);
      const arn = aws.executions.at(-1)!.executionArn;
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines).toContain(`Execution: ${arn}`);
      expect(lines.at(-1)).toMatch(
        /^Look at the execution's events .* Putting the same file again is safe: records already written are written again, the same\.$/,
      );
      expect(r.stderr).toContain(
        "The import's execution failed (States.Runtime: An error occurred while executing the state Plan) before writing its report.",
      );
    } finally {
      await watch.stop();
    }
  }, 120_000);
});
