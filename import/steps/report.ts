/**
 * Report: the counts summed, `reports/<import id>.json` written; "import ended". A failed import
 * first cancels its parts still writing (they stop at their next save), then counts what every
 * part wrote, finished or not.
 */
import pLimit from 'p-limit';
import { importAuditEvent } from '../audit.ts';
import { emptySummary, type ImportSummary } from '../summary.ts';
import { MAX_LISTED_PROBLEMS, type Verdict } from '../parts.ts';
import type { PlanResult } from './plan.ts';
import {
  uploader,
  type ExecutionInput,
  type ImportReport,
  type Outcome,
  type StepDeps,
} from './step.ts';
import {
  cancelKey,
  importIdOf,
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

export interface ReportResult {
  importId: string;
  outcome: Outcome;
  reportKey: string;
}

/** Parts' counts read at once, at most this many reads in flight. */
const TALLY_READS = 16;

/**
 * What the parts of an import wrote: those written whole (`written/`) and, when `stopped`, what
 * the others wrote before they stopped (`writing/`), after waiting up to CANCEL_GRACE_MS for
 * those still writing to save their final counts.
 */
async function tally(
  deps: StepDeps,
  bucket: string,
  importId: string,
  stopped: boolean,
): Promise<{
  counts: ImportSummary;
  written: number[];
  filesLeft: string[];
  filesLeftCount: number;
  writtenAgain: string[];
}> {
  const indexOf = (key: string) => Number(key.slice(key.lastIndexOf('/') + 1, -'.json'.length));
  const read = pLimit(TALLY_READS);
  const readAll = <T>(keys: string[]) =>
    Promise.all(keys.map((key) => read(() => readJson<T>(deps.s3, bucket, key))));
  const written = new Map<number, WrittenPart>();
  const partial: WritingCounts[] = [];
  const note = (found: (WrittenPart | undefined)[]) => {
    for (const c of found) if (c) written.set(c.index, c);
  };
  note(
    await readAll<WrittenPart>(await keysUnder(deps.s3, bucket, workPrefix(importId, 'written'))),
  );
  if (stopped) {
    const deadline = Date.now() + CANCEL_GRACE_MS;
    let pending = (await keysUnder(deps.s3, bucket, workPrefix(importId, 'writing')))
      .map(indexOf)
      .filter((index) => !written.has(index));
    for (;;) {
      // A part may have ended whole since it was last looked at: its written/ counts are whole.
      note(await readAll<WrittenPart>(pending.map((index) => writtenKey(importId, index))));
      pending = pending.filter((index) => !written.has(index));
      const found = await readAll<WritingCounts>(pending.map((i) => writingKey(importId, i)));
      const over = Date.now() >= deadline;
      for (const c of found) if (c && (c.final || over)) partial.push(c);
      pending = found.filter((c) => c && !c.final).map((c) => c!.index);
      if (pending.length === 0 || over) break;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
  const counts = emptySummary();
  for (const part of [...written.values(), ...partial])
    for (const name of Object.keys(counts) as (keyof ImportSummary)[]) counts[name] += part[name];
  const indexes = [...written.keys()].sort((a, b) => a - b);
  // Every part's, a part stopped half-way's too (what it saved), in file order; an entry without
  // a key is a record written again (work-folder.ts FileLeft).
  const notes = [...written.values(), ...partial]
    .flatMap((part) => part.filesLeft ?? [])
    .sort((a, b) => a[0] - b[0]);
  const left = notes.filter(([, key]) => key !== '');
  const listed = (entries: typeof notes) =>
    entries.slice(0, MAX_LISTED_PROBLEMS).map(([, , text]) => text);
  return {
    counts,
    written: indexes,
    filesLeft: listed(left),
    filesLeftCount: left.length,
    writtenAgain: listed(notes.filter(([, key]) => key === '')),
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
  let counts = emptySummary();
  let outcome = input.outcome;
  let error = outcome === 'failed' ? failure(input.error) : undefined;
  let parts: ImportReport['parts'];
  let filesLeft: Pick<ImportReport, 'filesLeft' | 'filesLeftCount' | 'writtenAgain'> = {
    filesLeft: [],
    filesLeftCount: 0,
  };
  const planned = plan?.parts !== undefined && plan.alreadyImported === undefined;
  // Verify's findings: a rejected file's problems, a valid one's warnings (none before Verify).
  const verdict =
    outcome === 'rejected' || planned
      ? await readJson<Verdict>(deps.s3, bucket, problemsKey(importId))
      : undefined;
  if (outcome !== 'rejected' && plan?.parts !== undefined && planned) {
    if (outcome === 'failed') await writeJson(deps.s3, bucket, cancelKey(importId), {});
    const found = await tally(deps, bucket, importId, outcome === 'failed');
    counts = found.counts;
    parts = { total: plan.parts, written: found.written };
    filesLeft = {
      filesLeft: found.filesLeft,
      filesLeftCount: found.filesLeftCount,
      ...(found.writtenAgain.length > 0 ? { writtenAgain: found.writtenAgain } : {}),
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
      ...uploader(input.input ?? {}),
    }),
  );
  return { importId, outcome, reportKey: reportKey(importId) };
}
