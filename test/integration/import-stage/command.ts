/**
 * `npm run import -- <file> --stage <name>` / `--stack <name>` (SPEC 9): the command itself
 * (bin/import.ts) run as a child process against a fake control plane
 * (test/support/fake-control-plane.ts) and the drop in the local S3, the stage's workflow started
 * on the upload as EventBridge would (test/support/stage-drop.ts): which stack it asks for, its
 * usage, and what it prints when an import ends without being whole. How the import follows the
 * upload to its report: ./follow.ts.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { importIdOf, reportKey } from '../../../import/steps/work-folder.ts';
import { type ImportReport } from '../../../import/steps/step.ts';
import { emptySummary } from '../../../import/summary.ts';
import { PROJECT_ROOT } from '../../../core/project-root.ts';
import { BASE_STACK_NAME } from '../../../stage/stage.ts';
import { S3RVER_CREDENTIALS, s3Client } from '../../../local/s3/s3-client.ts';
import { customer, line, transaction } from '../../fixtures.ts';
import { startFakeControlPlane } from '../../support/fake-control-plane.ts';
import {
  drop,
  executionFor,
  outputsOf,
  startStage,
  useStageDrop,
  watchUploads,
} from '../../support/stage-drop.ts';
import { CLEAN_ENV } from '../../support/clean-env.ts';

useStageDrop();

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
        LOCAL_DATA_DIR: join(dir, 'no-local-stack'),
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
