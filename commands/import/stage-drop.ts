/**
 * `npm run import -- <file> --stage <name>` or `--stack <name>` (SPEC 9): the stack's import
 * bucket and state machine from its outputs `ImportBucketName` and `ImportStateMachineArn`, the
 * file put under `incoming/` (in parts when large: commands/import/drop.ts) with the AWS credentials of
 * the environment, then the execution that upload started followed (./stage-execution.ts) until
 * its report is there, or it ended without one, or none started. What this needs of the
 * operator's policy (docs/operations.md): cloudformation:DescribeStacks on the stack;
 * s3:PutObject and s3:AbortMultipartUpload on `incoming/*`; s3:GetObject on `reports/*`;
 * states:ListExecutions on the state machine and states:DescribeExecution on its executions;
 * and, for the progress line only, s3:GetObject on `work/*` and s3:ListBucket on `work/`
 * (without them the line says only that the import runs).
 */
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { OUTPUTS, stackOutputs } from '../../stage/outputs.ts';
import { S3Client } from '@aws-sdk/client-s3';
import { SFNClient } from '@aws-sdk/client-sfn';
import { incomingKey, putIntoDrop } from './drop.ts';
import type { Progress } from '../../import/progress.ts';
import type { Part, Verdict } from '../../import/parts.ts';
import {
  CLOCK_SKEW_MS,
  describeExecution,
  endedWithoutReport,
  findExecution,
  isEnded,
  notStarted,
  stillRunning,
  type Execution,
  type Unreported,
} from './stage-execution.ts';
import { IMPORT_TIMEOUT_SECONDS, type ImportReport } from '../../import/steps/step.ts';
import {
  claimKey,
  importIdOf,
  keysUnder,
  manifestKey,
  problemsKey,
  readJson,
  reportKey,
  workPrefix,
  type Claim,
  type PartCounts,
  type WritingCounts,
} from '../../import/steps/work-folder.ts';

/** How often the report, the execution and the progress are looked at. */
export const POLL_MS = 2000;
/**
 * How long after the upload an execution must have started: EventBridge starts it within
 * seconds, so minutes without one mean the event never reached the rule.
 */
export const EXECUTION_START_WAIT_MS = 5 * 60 * 1000;
/**
 * When the command stops waiting whatever the execution says: past the workflow's own limit
 * (stage/import-workflow.ts), after which Step Functions has timed it out; 15 minutes for the
 * clocks and a Report step still finishing.
 */
export const FOLLOW_CEILING_MS = (IMPORT_TIMEOUT_SECONDS + 15 * 60) * 1000;

/** The stack's import drop: its bucket and the state machine uploads start. */
export interface StackDrop {
  bucket: string;
  stateMachineArn: string;
}

/** The stack's import drop, from its CloudFormation outputs. */
export async function dropOf(cfn: CloudFormationClient, stackName: string): Promise<StackDrop> {
  const output = await stackOutputs(cfn, stackName);
  return {
    bucket: output(OUTPUTS.importBucket),
    stateMachineArn: output(OUTPUTS.importStateMachine),
  };
}

/** As readJson, and nothing where the operator's policy does not let them read (progress). */
async function getJson<T>(s3: S3Client, bucket: string, key: string): Promise<T | undefined> {
  try {
    return await readJson<T>(s3, bucket, key);
  } catch (error) {
    if ((error as { name?: string }).name === 'AccessDenied') return undefined;
    throw error;
  }
}

/** `work/<id>/written/7.json` → 7 */
const indexOf = (key: string) => Number(/(\d+)\.json$/.exec(key)?.[1] ?? -1);
const total = (c: PartCounts) => c.records + c.deletes;

/**
 * How far the import is, from what its steps leave under `work/<import id>/`: the parts checked,
 * then the parts written and the records (and deletes) of each, whole (`written/`, read once:
 * they do not change) or so far (`writing/`, read again each time).
 */
function progressOf(s3: S3Client, bucket: string, importId: string) {
  let parts: number | undefined;
  let checkedRecords: number | undefined;
  const written = new Map<number, number>();
  return async (): Promise<Progress> => {
    parts ??= (await getJson<Part[]>(s3, bucket, manifestKey(importId)))?.length;
    if (parts === undefined) return { phase: 'planning', parts: 0, partsDone: 0, records: 0 };
    try {
      const [whole, writing] = await Promise.all([
        keysUnder(s3, bucket, workPrefix(importId, 'written')),
        keysUnder(s3, bucket, workPrefix(importId, 'writing')),
      ]);
      if (whole.length === 0 && writing.length === 0) {
        const checked = await keysUnder(s3, bucket, workPrefix(importId, 'checked'));
        return { phase: 'checking', parts, partsDone: checked.length, records: 0 };
      }
      await Promise.all(
        whole
          .filter((key) => !written.has(indexOf(key)))
          .map(async (key) => {
            const counts = await getJson<PartCounts>(s3, bucket, key);
            if (counts) written.set(indexOf(key), total(counts));
          }),
      );
      const partial = await Promise.all(
        writing
          .filter((key) => !written.has(indexOf(key)))
          .map((key) => getJson<WritingCounts>(s3, bucket, key)),
      );
      let records = 0;
      for (const n of written.values()) records += n;
      for (const counts of partial) if (counts) records += total(counts);
      // Verify's verdict counts the file's records: read once, it does not change.
      checkedRecords ??= (await getJson<Verdict>(s3, bucket, problemsKey(importId)))?.records;
      return {
        phase: 'writing',
        parts,
        partsDone: whole.length,
        records,
        ...(checkedRecords === undefined ? {} : { total: checkedRecords }),
      };
    } catch {
      return { phase: 'checking', parts, partsDone: 0, records: 0 };
    }
  };
}

/** The AWS clients of the environment's credentials and region (tests pass their own). */
export interface StageClients {
  cfn: CloudFormationClient;
  s3: S3Client;
  sfn: SFNClient;
}

/** The waits, named above; tests make them short. */
export interface FollowTimes {
  pollMs: number;
  startWaitMs: number;
  ceilingMs: number;
}

export interface StackImportOptions {
  clients?: StageClients;
  /**
   * The size of the upload's parts, S3's multipart parts (default from the file's size:
   * ./drop.ts); not the import's parts, which the stage's workflow plans.
   */
  uploadPartBytes?: number;
  times?: Partial<FollowTimes>;
}

/** The import's report, or how it ended without one. */
export type StackImportResult = { report: ImportReport } | { unreported: Unreported };

export async function importIntoStack(
  stackName: string,
  file: string,
  onProgress: (progress: Progress) => void,
  options: StackImportOptions = {},
): Promise<StackImportResult> {
  const { cfn, s3, sfn } = options.clients ?? {
    cfn: new CloudFormationClient({}),
    s3: new S3Client({}),
    sfn: new SFNClient({}),
  };
  const times: FollowTimes = {
    pollMs: POLL_MS,
    startWaitMs: EXECUTION_START_WAIT_MS,
    ceilingMs: FOLLOW_CEILING_MS,
    ...options.times,
  };
  try {
    const { bucket, stateMachineArn } = await dropOf(cfn, stackName);
    const since = new Date(Date.now() - CLOCK_SKEW_MS);
    const upload = (sent: number, size: number) =>
      onProgress({
        phase: 'uploading',
        parts: 0,
        partsDone: 0,
        records: 0,
        bytes: { sent, total: size },
      });
    const input = await putIntoDrop(s3, bucket, file, incomingKey(file), {
      ...(options.uploadPartBytes === undefined
        ? {}
        : { uploadPartBytes: options.uploadPartBytes }),
      onProgress: upload,
    });
    const uploaded = Date.now();
    const importId = importIdOf(input.key, input.versionId);
    const progress = progressOf(s3, bucket, importId);
    const seen = new Set<string>();
    let execution: Execution | undefined;
    for (;;) {
      const report = await getJson<ImportReport>(s3, bucket, reportKey(importId));
      if (report) return { report };
      const waited = Date.now() - uploaded;
      execution = execution?.executionArn
        ? await describeExecution(sfn, execution.executionArn)
        : await findExecution(sfn, stateMachineArn, input, since, seen);
      if (!execution) {
        if (waited >= times.startWaitMs)
          return { unreported: notStarted(stackName, bucket, input, waited) };
        onProgress({ phase: 'starting', parts: 0, partsDone: 0, records: 0 });
      } else if (isEnded(execution.status)) {
        // Report may have written it just before the execution ended (a rejected file fails it).
        const last = await getJson<ImportReport>(s3, bucket, reportKey(importId));
        if (last) return { report: last };
        // A repeated event's execution ends at once, having written nothing: the execution that
        // holds the upload's claim imports it, and is the one to follow.
        const holder = await getJson<Claim>(s3, bucket, claimKey(importId));
        if (holder === undefined || holder.execution === execution.executionArn)
          return { unreported: endedWithoutReport(execution) };
        execution = await describeExecution(sfn, holder.execution);
        continue;
      } else if (waited >= times.ceilingMs) {
        return { unreported: stillRunning(execution, waited) };
      } else {
        onProgress(await progress());
      }
      await new Promise((resolve) => setTimeout(resolve, times.pollMs));
    }
  } finally {
    cfn.destroy();
    s3.destroy();
    sfn.destroy();
  }
}
