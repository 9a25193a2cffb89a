/** Writing checked records in groups, a few groups at once: every import's second pass. */
import pLimit from 'p-limit';
import type { Parsed } from './checked-lines.ts';
import { count, emptySummary, type ImportSummary } from './summary.ts';
import { writeRecord, type WriterOptions, type Written } from './writer.ts';

/** The direct import's groups in flight at once, and the default of each part of a drop. */
export const WRITE_CONCURRENCY = 8;

/**
 * Runs a write group when one of `n` slots is free. One process writing several parts at once
 * (the local drop runs every part in one process) shares one, so that its requests in flight
 * stay those of one import; a stage's function writes one part at a time.
 */
export type WriteSlots = <T>(write: () => Promise<T>) => Promise<T>;
export const writeSlots = (n: number): WriteSlots => pLimit(n);

export interface WriteOptions extends WriterOptions {
  /** Checked before each group: throws once the import may no longer write (its horizon). */
  mayWrite?: () => void;
  recordsPerGroup?: number;
  concurrency?: number;
  /** Slots shared with other writes in this process; default `concurrency` of its own. */
  slots?: WriteSlots;
  /** Once aborted, no group starts (those in flight finish); its reason is what is thrown. */
  signal?: AbortSignal;
  /**
   * Called after each group is written, with each record or delete and what its write found;
   * the group is done (its slot among `concurrency` free for the next) once what this returns
   * has settled: a part saves its progress so, before the next group starts. A rejection stops
   * the writing as a failed write does.
   */
  onWritten?: (group: { write: Parsed; written: Written }[]) => void | Promise<void>;
  /** Whether an earlier run may have sent this write without recording its answer. */
  mayHaveLanded?: (write: Parsed) => boolean;
}

/**
 * Pass two: writes checked records, in groups, at most `concurrency` groups at once; the first
 * failure (of the writes, or of `records`) stops it. Returns the counts.
 */
export async function writeRecords(
  records: AsyncIterable<Parsed>,
  options: WriteOptions,
): Promise<ImportSummary> {
  const { recordsPerGroup = 25, concurrency = WRITE_CONCURRENCY, onWritten = () => {} } = options;
  const slots = options.slots ?? writeSlots(concurrency);
  const summary = emptySummary();
  const mayHaveLanded = options.mayHaveLanded ?? (() => false);
  // The group's records at once; those written are counted and told even when another fails,
  // so that a failed import's report counts every record it wrote (SPEC 9).
  const write = async (group: Parsed[]) => {
    options.mayWrite?.();
    const settled = await Promise.allSettled(
      group.map((w) => writeRecord(options, w, { mayHaveLanded: mayHaveLanded(w) })),
    );
    const done = group.flatMap((write, i) => {
      const result = settled[i]!;
      return result.status === 'fulfilled' ? [{ write, written: result.value }] : [];
    });
    for (const { write, written } of done) count(summary, write, written);
    const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) failure ??= { error: failed.reason };
    return done;
  };

  const inFlight = new Set<Promise<void>>();
  let failure: { error: unknown } | undefined;
  const start = (group: Parsed[]): void => {
    // The failure is noted before the slot is let go: a group still waiting is not written.
    const task: Promise<void> = slots(async () => {
      if (!failure && options.signal?.aborted) failure = { error: options.signal.reason };
      if (!failure) return write(group).catch((error: unknown) => void (failure ??= { error }));
    })
      // Told outside the slot: a part's save does not hold a write slot of the process.
      .then(async (done) => {
        if (done) await onWritten(done);
      })
      .catch((error: unknown) => void (failure ??= { error }))
      .finally(() => inFlight.delete(task));
    inFlight.add(task);
  };
  let group: Parsed[] = [];
  for await (const parsed of records) {
    if (options.signal?.aborted) failure ??= { error: options.signal.reason };
    if (failure) break;
    group.push(parsed);
    if (group.length < recordsPerGroup) continue;
    start(group);
    group = [];
    while (inFlight.size >= concurrency && !failure) await Promise.race(inFlight);
    if (failure) break;
  }
  if (group.length > 0 && !failure) start(group);
  await Promise.all(inFlight);
  if (failure) throw failure.error;
  return summary;
}
