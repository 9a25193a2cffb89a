/**
 * Report: the counts summed, `reports/<import id>.json` written; "import ended". A failed import
 * first cancels its parts still writing (they stop at their next save), then counts what every
 * part wrote, finished or not.
 */
import pLimit from 'p-limit';
import { importAuditEvent } from '../audit.ts';
import { emptySummary, type ImportSummary } from '../summary.ts';
import type { Verdict } from '../parts.ts';
import type { PlanResult } from './plan.ts';
import {
  uploader,
  type ExecutionInput,
  type ImportReport,
  type Outcome,
  type StepDeps,
} from './step.ts';
import {
  FilesLeftList,
  cancelKey,
  claimHolder,
  existsByHead,
  importIdOf,
  kindOf,
  keysUnder,
  problemsKey,
  readJson,
  reportKey,
  workPrefix,
  writeJson,
  writingKey,
  writtenKey,
  type WritingCounts,
  type WrittenPart,
} from './work-folder.ts';

/** How long a failed import's Report waits for parts still writing to stop and say how far. */
export const CANCEL_GRACE_MS = 60_000;

export interface ReportInput {
  /** Missing when Plan failed: then it is made from the key and version, as Plan makes it. */
  importId?: string;
  bucket: string;
  key: string;
  versionId: string;
  sha256?: string;
  startedAt?: string;
  outcome: Outcome;
  /** A Catch's `$.error`: `{ Error, Cause }`. */
  error?: { Error?: string; Cause?: string };
  /** The execution's state (the execution input, and `plan` once Plan ran). */
  input?: Partial<ExecutionInput> & { plan?: Partial<PlanResult> };
  /**
   * ReportFallback's (stage/import-workflow.ts): the name of the error that stopped Report. The
   * report then says the import failed and why, and reads nothing: what the parts wrote is not
   * counted (Report's own failure may have come of reading it).
   */
  reportFailed?: string;
  /** `$$.Execution.RedriveCount`: a failed attempt cancels its own parts only. */
  redriveCount?: number;
}

/**
 * What stopped a failed import, short: the error's name and its message (the steps' errors name
 * lines, records and parts, never a record's fields).
 */
function failure(error: ReportInput['error']): string {
  let message: string;
  try {
    message = (JSON.parse(error?.Cause ?? '') as { errorMessage?: string }).errorMessage ?? '';
  } catch {
    message = error?.Cause ?? '';
  }
  return [error?.Error ?? 'Error', message.slice(0, 500)].filter(Boolean).join(': ');
}

/** ReportFallback's error: Report's by its name, and what had stopped the import before it. */
function reportFailure(input: ReportInput): string {
  const before = (input.input as { error?: ReportInput['error'] } | undefined)?.error;
  return (
    `Report failed (${(input.reportFailed || 'Error').slice(0, 100)}): what the parts wrote is not counted` +
    (before === undefined ? '' : `; the import had failed before it: ${failure(before)}`)
  );
}

export interface ReportResult {
  importId: string;
  outcome: Outcome;
  reportKey: string;
  /**
   * Another execution holds the upload's claim and imports it: this one wrote no report, and
   * ends as Duplicate, without an alert (stage/import-workflow.ts).
   */
  claimedBy?: string;
}

/** HEAD requests in flight at once while a failed import's parts are waited for. */
const TALLY_CHECKS = 16;

/** What the parts of an import wrote, as the report says it. */
interface Tally {
  counts: ImportSummary;
  written: number[];
  filesLeft: string[];
  filesLeftCount: number;
  writtenAgain: string[];
  mayHaveWritten: string[];
}

/**
 * What the parts of an import wrote: those written whole (`written/`) and, when `stopped`, what
 * the others wrote before they stopped (`writing/`), after waiting up to CANCEL_GRACE_MS for
 * those still writing to save their final counts.
 *
 * Memory stays bounded whatever the parts name: each part's object is read alone, its counts
 * added and its files left merged into one FilesLeftList (each part's object holds the first of
 * each kind and the count), so Report holds those and one part.
 */
async function tally(
  deps: StepDeps,
  bucket: string,
  importId: string,
  stopped: boolean,
): Promise<Tally> {
  const indexOf = (key: string) => Number(key.slice(key.lastIndexOf('/') + 1, -'.json'.length));
  const indexesUnder = async (name: 'written' | 'writing') =>
    (await keysUnder(deps.s3, bucket, workPrefix(importId, name))).map(indexOf);
  const written = new Set(await indexesUnder('written'));
  /** Parts stopped half-way: counted as far as their `writing/` object says. */
  const partial = new Set<number>();
  if (stopped) {
    const check = pLimit(TALLY_CHECKS);
    const deadline = Date.now() + CANCEL_GRACE_MS;
    let pending = (await indexesUnder('writing')).filter((index) => !written.has(index));
    for (;;) {
      // A part may have ended whole since it was last looked at: its written/ counts are whole.
      const whole = await Promise.all(
        pending.map((i) => check(() => existsByHead(deps.s3, bucket, writtenKey(importId, i)))),
      );
      pending.forEach((index, i) => whole[i] && written.add(index));
      pending = pending.filter((index) => !written.has(index));
      const over = Date.now() >= deadline;
      const still: number[] = [];
      // One at a time, only whether it stopped kept: each object holds the part's files left.
      for (const index of pending) {
        const found = await readJson<WritingCounts>(deps.s3, bucket, writingKey(importId, index));
        if (found && (found.final || over)) partial.add(index);
        else if (found) still.push(index);
      }
      pending = still;
      if (pending.length === 0 || over) break;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
  const counts = emptySummary();
  const done: number[] = [];
  const left = new FilesLeftList();
  for (const index of [...new Set([...written, ...partial])].sort((a, b) => a - b)) {
    // A part stopped half-way that has since ended whole counts as written whole.
    let part: WrittenPart | WritingCounts | undefined = await readJson<WrittenPart>(
      deps.s3,
      bucket,
      writtenKey(importId, index),
    );
    if (part) done.push(index);
    else part = await readJson<WritingCounts>(deps.s3, bucket, writingKey(importId, index));
    if (!part) continue;
    for (const name of Object.keys(counts) as (keyof ImportSummary)[]) counts[name] += part[name];
    // A part stopped half-way's too (what it saved).
    left.merge(part);
  }
  const { filesLeft, filesLeftCount } = left.kept();
  const textsOf = (kind: ReturnType<typeof kindOf>) =>
    filesLeft.filter((entry) => kindOf(entry) === kind).map(([, , text]) => text);
  return {
    counts,
    written: done,
    filesLeft: textsOf('file'),
    filesLeftCount,
    writtenAgain: textsOf('again'),
    mayHaveWritten: textsOf('maybe'),
  };
}

/**
 * Report: the counts summed, `reports/<import id>.json` written; "import ended". A failed import
 * first cancels its parts still writing (they stop at their next save), then counts what every
 * part wrote, finished or not.
 */
export async function report(deps: StepDeps, input: ReportInput): Promise<ReportResult> {
  const { bucket } = input;
  const plan = input.input?.plan;
  const importId = input.importId ?? plan?.importId ?? importIdOf(input.key, input.versionId);
  const key = plan?.key ?? input.key;
  // One upload, one import: the report is the execution's that claimed the upload (./plan.ts),
  // never overwritten by another execution of it (one whose Plan failed before it found the claim).
  const attempt = { execution: input.input?.execution?.id, redriveCount: input.redriveCount };
  const holder = await claimHolder(deps.s3, bucket, importId);
  if (holder !== undefined && holder !== attempt.execution)
    return { importId, outcome: input.outcome, reportKey: reportKey(importId), claimedBy: holder };
  let counts = emptySummary();
  let outcome = input.outcome;
  const fallback = input.reportFailed !== undefined;
  let error = fallback
    ? reportFailure(input)
    : outcome === 'failed'
      ? failure(input.error)
      : undefined;
  let parts: ImportReport['parts'];
  let filesLeft: Pick<
    ImportReport,
    'filesLeft' | 'filesLeftCount' | 'writtenAgain' | 'mayHaveWritten'
  > = {
    filesLeft: [],
    filesLeftCount: 0,
  };
  const planned = !fallback && plan?.parts !== undefined && plan.alreadyImported === undefined;
  // Verify's findings: a rejected file's problems, a valid one's warnings (none before Verify).
  const verdict =
    outcome === 'rejected' || planned
      ? await readJson<Verdict>(deps.s3, bucket, problemsKey(importId))
      : undefined;
  if (outcome !== 'rejected' && plan?.parts !== undefined && planned) {
    if (outcome === 'failed') await writeJson(deps.s3, bucket, cancelKey(importId, attempt), {});
    const found = await tally(deps, bucket, importId, outcome === 'failed');
    counts = found.counts;
    parts = { total: plan.parts, written: found.written };
    filesLeft = {
      filesLeft: found.filesLeft,
      filesLeftCount: found.filesLeftCount,
      ...(found.writtenAgain.length > 0 ? { writtenAgain: found.writtenAgain } : {}),
      ...(found.mayHaveWritten.length > 0 ? { mayHaveWritten: found.mayHaveWritten } : {}),
    };
    const missing = found.written.length < plan.parts;
    if (outcome === 'imported' && missing) {
      outcome = 'failed';
      const set = new Set(found.written);
      const first = Array.from({ length: plan.parts }, (_, i) => i).find((i) => !set.has(i));
      error = `part ${first} was not written`;
    }
  }
  const result: ImportReport = {
    importId,
    outcome,
    ...(plan?.version === undefined ? {} : { version: plan.version }),
    key,
    versionId: input.versionId,
    sha256: input.sha256 ?? plan?.sha256 ?? null,
    startedAt: input.startedAt ?? plan?.startedAt ?? null,
    endedAt: new Date().toISOString(),
    counts,
    problems: verdict?.problems ?? [],
    problemCount: verdict?.problemCount ?? 0,
    warnings: verdict?.warnings ?? [],
    warningCount: verdict?.warningCount ?? 0,
    lookupWarnings: verdict?.lookupWarnings ?? [],
    lookupWarningCount: verdict?.lookupWarningCount ?? 0,
    ...filesLeft,
    ...(error === undefined ? {} : { error }),
    ...(fallback ? { notCounted: true as const } : {}),
    ...(parts === undefined ? {} : { parts }),
  };
  await writeJson(deps.s3, bucket, reportKey(importId), result);
  deps.audit(
    importAuditEvent(importId, {
      kind: 'import-ended',
      key,
      versionId: input.versionId,
      sha256: result.sha256,
      outcome,
      counts,
      problems: result.problemCount,
      ...(parts === undefined ? {} : { parts }),
      ...(fallback ? { notCounted: true as const } : {}),
      ...uploader(input.input ?? {}),
    }),
  );
  return { importId, outcome, reportKey: reportKey(importId) };
}
