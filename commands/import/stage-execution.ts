/**
 * The execution of a stage's import workflow that EventBridge started for one upload (SPEC 9),
 * found and followed with Step Functions, so that `npm run import -- <file> --stage <name>` ends
 * with what happened even when the import leaves no report: the execution failed, timed out or
 * was stopped before its Report step, or no execution started at all.
 */
import {
  DescribeExecutionCommand,
  ListExecutionsCommand,
  type DescribeExecutionCommandOutput,
  type SFNClient,
} from '@aws-sdk/client-sfn';

/** The upload an execution must have been started for: its input's `key` and `versionId`. */
export interface Uploaded {
  key: string;
  /** `null` where the bucket keeps no versions: then the key alone is matched. */
  versionId: string;
}

export type Execution = Pick<
  DescribeExecutionCommandOutput,
  'executionArn' | 'status' | 'startDate' | 'stopDate' | 'error' | 'cause'
>;

/**
 * How far before the upload an execution may say it started: ListExecutions' start dates are
 * Step Functions' clock, the upload's time this machine's. Only a bound on the pages read: an
 * execution is matched by its input, and every key under `incoming/` is new (commands/import/drop.ts).
 */
export const CLOCK_SKEW_MS = 5 * 60 * 1000;

/** S3 event keys may arrive URL-encoded (`+` for a space); incomingKey's never differ. */
function sameKey(inInput: unknown, key: string): boolean {
  if (inInput === key) return true;
  if (typeof inInput !== 'string') return false;
  try {
    return decodeURIComponent(inInput.replace(/\+/g, ' ')) === key;
  } catch {
    return false;
  }
}

function startedFor(input: string | undefined, upload: Uploaded): boolean {
  let parsed: { key?: unknown; versionId?: unknown };
  try {
    parsed = JSON.parse(input ?? '') as typeof parsed;
  } catch {
    return false;
  }
  if (!sameKey(parsed.key, upload.key)) return false;
  return upload.versionId === 'null' || parsed.versionId === upload.versionId;
}

/**
 * Finds the execution started for `upload`: the state machine's executions newest first, down to
 * those started before `since`, each one's input read once (`seen` keeps those that were not it).
 */
export async function findExecution(
  sfn: SFNClient,
  stateMachineArn: string,
  upload: Uploaded,
  since: Date,
  seen: Set<string>,
): Promise<Execution | undefined> {
  let nextToken: string | undefined;
  do {
    const page = await sfn.send(
      new ListExecutionsCommand({ stateMachineArn, maxResults: 100, nextToken }),
    );
    for (const item of page.executions ?? []) {
      if (item.startDate !== undefined && item.startDate.getTime() < since.getTime())
        return undefined;
      if (!item.executionArn || seen.has(item.executionArn)) continue;
      const execution = await describeExecution(sfn, item.executionArn);
      if (startedFor(execution.input, upload)) return execution;
      seen.add(item.executionArn);
    }
    nextToken = page.nextToken;
  } while (nextToken);
  return undefined;
}

export function describeExecution(
  sfn: SFNClient,
  executionArn: string,
): Promise<DescribeExecutionCommandOutput> {
  return sfn.send(new DescribeExecutionCommand({ executionArn }));
}

/** An execution's end that leaves nothing more to wait for (a redrive is a new wait). */
export const isEnded = (status: Execution['status']): boolean =>
  status === 'SUCCEEDED' || status === 'FAILED' || status === 'TIMED_OUT' || status === 'ABORTED';

/** How an import followed to its end left no report, in words for the operator. */
export interface Unreported {
  why: 'failed' | 'timed-out' | 'aborted' | 'succeeded' | 'not-started' | 'still-running';
  executionArn?: string;
  /** What to print, the last line saying what to do. */
  lines: string[];
}

const AGAIN =
  'Putting the same file again is safe: records already written are written again, the same.';
const LOOK = (arn: string) =>
  `Look at the execution's events in the Step Functions console (${arn}): the step that stopped and why.`;

/** One line of at most 300 characters: a cause may be a stack trace. */
const oneLine = (text: string) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 297)}...` : flat;
};

/** An execution that ended without the import's report. */
export function endedWithoutReport(execution: Execution): Unreported {
  const arn = execution.executionArn ?? 'unknown';
  const what = [execution.error, execution.cause]
    .filter((s): s is string => !!s)
    .map(oneLine)
    .join(': ');
  const because = what ? ` (${what})` : '';
  const how: Record<string, [Unreported['why'], string]> = {
    FAILED: ['failed', `The import's execution failed${because} before writing its report.`],
    TIMED_OUT: [
      'timed-out',
      `The import's execution timed out${because} before writing its report: it ran past the workflow's time limit.`,
    ],
    ABORTED: [
      'aborted',
      `The import's execution was stopped (aborted)${because} before writing its report.`,
    ],
    SUCCEEDED: ['succeeded', "The import's execution succeeded but left no report."],
  };
  const [why, line] = how[execution.status ?? ''] ?? [
    'failed',
    `The import's execution ended ${execution.status ?? 'unknown'} without a report.`,
  ];
  return {
    why,
    executionArn: arn,
    lines: [line, `Execution: ${arn}`, `${LOOK(arn)} ${AGAIN}`],
  };
}

/** No execution was seen for the upload within `waitedMs` of it. */
export function notStarted(
  stackName: string,
  bucket: string,
  upload: Uploaded,
  waitedMs: number,
): Unreported {
  return {
    why: 'not-started',
    lines: [
      `No import started within ${Math.round(waitedMs / 1000)} s of the upload of s3://${bucket}/${upload.key}.`,
      `Check that the bucket ${bucket} sends its events to Amazon EventBridge (its properties, "Amazon EventBridge": On), ` +
        `that stack ${stackName}'s EventBridge rule for uploads (OnUpload) is enabled and targets the import state machine, ` +
        `and that the key is under incoming/. Then put the file again.`,
    ],
  };
}

/** Past the workflow's own time limit and still running: not followed any longer. */
export function stillRunning(execution: Execution, waitedMs: number): Unreported {
  const arn = execution.executionArn ?? 'unknown';
  return {
    why: 'still-running',
    executionArn: arn,
    lines: [
      `The import's execution is still ${execution.status ?? 'running'} after ${Math.round(waitedMs / 60_000)} minutes, past the workflow's own time limit; no longer waiting for it.`,
      `Execution: ${arn}`,
      LOOK(arn),
    ],
  };
}
