/** What an import did, counted as its report and its audit event say it (SPEC 9). */
import type { Write, Written } from './writer.ts';

export interface ImportSummary {
  /** Records written (created or replaced). */
  records: number;
  transactions: number;
  customers: number;
  /** Records deleted, and how many of them were not there. */
  deletes: number;
  notFound: number;
  /** Records (and deletions) left as a later file left them: not written. */
  left: number;
  /**
   * Records (and deletions) a later file's version has replaced, that this import may have
   * written before it: a send whose answer was lost (a timeout, a part run again) may have
   * landed, and two later files' writes have landed since (import/writer.ts). Counted apart
   * from records, deletes and left: which it was is not known.
   */
  maybe: number;
  /**
   * Records (and deletions) found already written by this import (a write sent again, a part run
   * again) in an item that keeps no PRIOR's (core/layout.ts): done, but what they replaced is not
   * known (counted in records or deletes, never in notFound).
   */
  again: number;
  /**
   * Records written over, or left by, a file put within the same second: S3's sequencer broke
   * the tie, which is fixed but does not tell which file was put last.
   */
  sameSecond: number;
}

/** An empty summary, and how one written record or delete counts in it. */
export const emptySummary = (): ImportSummary => ({
  records: 0,
  transactions: 0,
  customers: 0,
  deletes: 0,
  notFound: 0,
  left: 0,
  maybe: 0,
  again: 0,
  sameSecond: 0,
});

export function count(summary: ImportSummary, write: Write, written: Written): void {
  if (written.outcome !== 'again' && written.sameSecond) summary.sameSecond += 1;
  if (written.outcome === 'left' || written.outcome === 'maybe') {
    summary[written.outcome] += 1;
    return;
  }
  if (written.outcome === 'again') summary.again += 1;
  if (write.kind === 'delete') {
    summary.deletes += 1;
    if (written.outcome === 'written' && !written.existed) summary.notFound += 1;
  } else {
    summary.records += 1;
    summary[write.entity.name === 'transaction' ? 'transactions' : 'customers'] += 1;
  }
}
