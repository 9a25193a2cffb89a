/**
 * What `npm run import` prints of an import's end (SPEC 5, 9): the report as a person reads it,
 * problems on stderr, the outcome and counts on stdout, and the exit status it means.
 */
import { basename } from 'node:path';
import { plural } from '../../core/plural.ts';
import { type ImportReport } from '../../import/steps/step.ts';
import type { Unreported } from './stage-execution.ts';

/** Counts as the last lines say them: records, by entity, and deletes. */
function countsText(counts: ImportReport['counts']): string {
  const deleted =
    counts.deletes === 0
      ? ''
      : `, deleted ${counts.deletes} (${counts.notFound} of them not there)`;
  return `${plural(counts.records, 'record')} (${plural(counts.transactions, 'transaction')}, ${plural(counts.customers, 'customer')})${deleted}`;
}

/**
 * A failed import's last line: what is in the table (every record counted is: import/steps/
 * report) and what to do next.
 */
function failedLine(report: ImportReport): string {
  const { counts, parts } = report;
  const whole =
    parts === undefined ? '' : `; ${parts.written.length} of ${parts.total} parts written whole`;
  const written = report.notCounted
    ? 'What it wrote before it stopped is not counted: its report could not be made whole.'
    : counts.records + counts.deletes === 0
      ? `Nothing was written${whole}.`
      : `Written before it stopped: ${countsText(counts)}${whole}.`;
  return `${written} Putting the same file again is safe: records already written are written again, the same.`;
}

/**
 * The report as a person reads it: problems on stderr, the outcome and counts on stdout; for the
 * local drop, the report's file on this machine too (`reportFile`), which nothing else names.
 */
export function printReport(
  report: ImportReport,
  file: string,
  where: string,
  reportFile?: string,
): number {
  if (report.outcome === 'imported') {
    console.log(`Imported ${countsText(report.counts)} from ${basename(file)} into ${where}`);
    printOrder(report.counts);
    printWarnings(report);
  } else if (report.outcome === 'rejected') {
    printFirst(report.problems);
    const n = report.problemCount;
    console.error(
      `The file has ${n} problem${n === 1 ? '' : 's'}${shown(report.problems.length, n)}; nothing was written`,
    );
  } else {
    console.error(`The import failed: ${report.error ?? 'see the report'}`);
    printOrder(report.counts);
    printWarnings(report);
  }
  console.error(
    `Report: reports/${report.importId}.json (SHA-256 ${report.sha256 ?? 'unknown'}, ${report.startedAt ?? '?'} to ${report.endedAt}` +
      `${report.version === undefined ? '' : `, version ${report.version}`})`,
  );
  if (reportFile !== undefined) console.error(`Report file: ${reportFile}`);
  if (report.outcome === 'failed') console.error(failedLine(report));
  return report.outcome === 'imported' ? 0 : 1;
}

/**
 * What the file put later decided (SPEC 6): records a later file had written, records this import
 * may have written before a later file did (a send whose answer was lost), records this import
 * had written already (a write sent again), and uploads within the same second.
 */
function printOrder(counts: ImportReport['counts']): void {
  if (counts.left > 0)
    console.log(
      `${plural(counts.left, 'record')} left as a later file left ${counts.left === 1 ? 'it' : 'them'}: a file put after this one had written or deleted ${counts.left === 1 ? 'it' : 'them'}`,
    );
  if (counts.maybe > 0)
    console.log(
      `${plural(counts.maybe, 'record')} may have been written by this import before a later file replaced ${counts.maybe === 1 ? 'it' : 'them'} (a send whose answer was lost may have landed): what ${counts.maybe === 1 ? 'it' : 'they'} replaced is not known (mayHaveWritten in the report)`,
    );
  if (counts.again > 0)
    console.log(
      `${plural(counts.again, 'record')} found already written by this import, by a writer that kept no record of what it replaced: what ${counts.again === 1 ? 'it' : 'they'} replaced is not known (writtenAgain in the report)`,
    );
  if (counts.sameSecond > 0)
    console.log(
      `${plural(counts.sameSecond, 'record')} also written by a file put within the same second: which stands is fixed by S3's sequencer, not by which was put last`,
    );
}

/**
 * Files the records name that the files bucket lacks (imported all the same), and files that
 * replaced or deleted records no longer name (the import never deletes a file).
 */
function printWarnings(report: ImportReport): void {
  const left = report.filesLeftCount ?? 0;
  printFirst(report.filesLeft ?? [], 'note: ');
  if (left > 0)
    console.error(
      `${left} file${left === 1 ? '' : 's'} no longer named by ${left === 1 ? 'its record' : 'their records'}` +
        `${shown(report.filesLeft.length, left)}: ` +
        'remove each from the files bucket unless another record names it (docs/security.md)',
    );
  const lookups = report.lookupWarningCount ?? 0;
  if (lookups > 0)
    console.error(
      `${lookups} customer identifier${lookups === 1 ? '' : 's'} or name${lookups === 1 ? '' : 's'} of an unexpected shape, kept as given ` +
        `(a TIN not 9 to 14 digits, an SSS number not 10, or a value no lookup finds): lookupWarnings in the report lists ${lookups === 1 ? 'it' : 'them'}`,
    );
  const n = report.warningCount ?? 0;
  if (n === 0) return;
  printFirst(report.warnings, 'warning: ');
  console.error(
    `${n} file${n === 1 ? '' : 's'} named by records ${n === 1 ? 'is' : 'are'} not in the files bucket${shown(report.warnings.length, n)}: ` +
      'the records are imported; their links answer 404 until the files are put there',
  );
}

/**
 * How many lines of a list the terminal shows: the report (whose place the last lines give) holds
 * them all, or its first ones (import/parts.ts) and their count.
 */
const TERMINAL_LINES = 10;

function printFirst(lines: string[], prefix = ''): void {
  for (const line of lines.slice(0, TERMINAL_LINES)) console.error(`${prefix}${line}`);
}

/** What the lines printed are of the list, when not all of it. */
function shown(listed: number, total: number): string {
  const printed = Math.min(listed, TERMINAL_LINES);
  if (printed === total) return '';
  return ` (the first ${printed} shown; the report lists ${listed === total ? 'every one' : `the first ${listed}`})`;
}

/** An import that ended without a report: what happened, and what to do, on stderr. */
export function printUnreported(unreported: Unreported): number {
  for (const line of unreported.lines) console.error(line);
  return 1;
}
