/**
 * `npm run import -- <file> [--stage <name> | --stack <name>]` (SPEC 5, 9): the file into an
 * import drop, the import followed with a progress line, its report printed; exit 0 only when
 * imported whole. Without a flag, the local stack's drop, the workflow run in this process
 * (local/step-functions/import-runner.ts); with one, a deployed stack's drop, found from its outputs
 * (commands/import/stage-drop.ts): --stack names the CloudFormation stack (the default stack is
 * `CurrencyExchangeReadApi`), --stage <name> is short for --stack CurrencyExchangeReadApi-<name>.
 * Records never reach a deployed table from this machine: TABLE_NAME is refused (README).
 */
import { plural } from '../core/plural.ts';
import { awsSetupProblem } from './aws-setup.ts';
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import type { Progress } from '../import/progress.ts';
import { reportKey } from '../import/steps/work-folder.ts';
import { type ImportReport } from '../import/steps/step.ts';
import type { Unreported } from '../commands/import/stage-execution.ts';
import { progressLine } from '../commands/import/progress-line.ts';
import { ConfigError, positiveFromEnv } from '../core/env.ts';
import { makeStage } from '../stage/stage.ts';
import { dropFile, localDropOptionsFromEnv } from '../commands/import/local-drop.ts';
import { localObjectFile } from '../local/s3/s3-client.ts';
import {
  incompleteState,
  localAuditDir,
  LocalStackNotRunning,
  readLocalState,
  runningDataDir,
  type LocalState,
} from '../local/stack/state.ts';

const USAGE = 'Usage: npm run import -- <file.jsonl> [--stage <name> | --stack <name>]';

/** The running local stack's (in `dataDir`). */
function localState(dataDir: string): Partial<LocalState> {
  try {
    return readLocalState(dataDir);
  } catch (error) {
    if (!(error instanceof LocalStackNotRunning)) throw error;
    throw new Error(
      `The local stack has not been started: run \`npm start\`${error.hint}, or give --stage <name> or --stack <name> for a deployed stack`,
      { cause: error },
    );
  }
}

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
  const written =
    counts.records + counts.deletes === 0
      ? `Nothing was written${whole}.`
      : `Written before it stopped: ${countsText(counts)}${whole}.`;
  return `${written} Putting the same file again is safe: records already written are written again, the same.`;
}

/**
 * The report as a person reads it: problems on stderr, the outcome and counts on stdout; for the
 * local drop, the report's file on this machine too (`reportFile`), which nothing else names.
 */
function printReport(
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
      `${plural(counts.again, 'record')} found already written by this import (a write sent again): what ${counts.again === 1 ? 'it' : 'they'} replaced is not known (writtenAgain in the report)`,
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
function printUnreported(unreported: Unreported): number {
  for (const line of unreported.lines) console.error(line);
  return 1;
}

interface Args {
  file: string;
  /** A deployed stack's drop (--stack, or --stage's stack); none for the local drop. */
  target?: { stack: string } | { stage: string };
}

/** The value of `flag`, taken out of `args`; null when the flag has none (a usage error). */
function takeFlag(args: string[], flag: string): string | undefined | null {
  const at = args.indexOf(flag);
  if (at === -1) return undefined;
  const value = args[at + 1];
  if (value === undefined || value === '' || value.startsWith('--')) return null;
  args.splice(at, 2);
  return value;
}

function parseArgs(argv: string[]): Args | undefined {
  const args = [...argv];
  const stage = takeFlag(args, '--stage');
  const stack = takeFlag(args, '--stack');
  if (stage === null || stack === null || (stage !== undefined && stack !== undefined))
    return undefined;
  if (args.length !== 1 || args[0]!.startsWith('--')) return undefined;
  const file = args[0]!;
  if (stack !== undefined) return { file, target: { stack } };
  if (stage !== undefined) return { file, target: { stage } };
  return { file };
}

/**
 * Why `file` cannot be imported, checked before a stack or stage is looked for: the operator
 * fixes the command line, so the message says what to give, not an errno.
 */
function fileProblem(file: string): string | undefined {
  let stats;
  try {
    stats = statSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return `no such file: ${file}`;
    if (code === 'EACCES') return `cannot read ${file}: permission denied`;
    return `cannot read ${file}: ${(error as Error).message}`;
  }
  if (stats.isDirectory()) return `${file} is a directory, give a .jsonl file`;
  try {
    accessSync(file, constants.R_OK);
  } catch {
    return `cannot read ${file}: permission denied`;
  }
  return undefined;
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  if (!args) {
    console.error(USAGE);
    return 2;
  }
  if (process.env.TABLE_NAME) {
    console.error(
      'TABLE_NAME is no longer used: records reach a deployed table only through its drop: `npm run import -- <file> --stage <name>` or `--stack <name>` (README)',
    );
    return 2;
  }
  const { file, target } = args;
  const unreadable = fileProblem(file);
  if (unreadable) {
    console.error(unreadable);
    return 2;
  }
  let settings;
  let everySeconds;
  try {
    settings = target === undefined ? localDropOptionsFromEnv() : {};
    everySeconds = positiveFromEnv(process.env, 'IMPORT_PROGRESS_SECONDS');
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    return 2;
  }
  // A stage's name is checked here (SettingsError: exit 1, with the rule), a stack's by CloudFormation.
  const stackName =
    target === undefined || 'stack' in target
      ? target?.stack
      : makeStage({ name: target.stage }).stackName;
  const progress = progressLine({
    tty: process.stderr.isTTY === true,
    write: (text) => process.stderr.write(text),
    ...(everySeconds === undefined ? {} : { everySeconds }),
  });
  let print: () => number;
  try {
    if (target !== undefined && stackName !== undefined) {
      const { importIntoStack } = await import('../commands/import/stage-drop.ts');
      const result = await importIntoStack(stackName, file, progress.update);
      const where = 'stack' in target ? `stack ${target.stack}` : `stage ${target.stage}`;
      print = () =>
        'report' in result
          ? printReport(result.report, file, where)
          : printUnreported(result.unreported);
    } else {
      const { report, where, reportFile } = await importLocally(file, settings, progress.update);
      print = () => printReport(report, file, where, reportFile);
    }
  } finally {
    // The line ends before anything else is printed, whatever happened.
    progress.end();
  }
  return print();
}

/** Into the running local stack's drop, the workflow run here. */
async function importLocally(
  file: string,
  settings: ReturnType<typeof localDropOptionsFromEnv>,
  onProgress: (p: Progress) => void,
): Promise<{ report: ImportReport; where: string; reportFile?: string }> {
  const dataDir = runningDataDir();
  const state = localState(dataDir);
  if (
    !state.tableName ||
    !state.dynamoDbEndpoint ||
    !state.s3Endpoint ||
    !state.importBucketName ||
    !state.displayTimeZone
  )
    throw incompleteState(dataDir);
  const report = await dropFile(
    {
      s3Endpoint: state.s3Endpoint,
      importBucketName: state.importBucketName,
      dynamoDbEndpoint: state.dynamoDbEndpoint,
      tableName: state.tableName,
      // Times are read in the zone the local functions show them in (SPEC 3.5).
      displayTimeZone: state.displayTimeZone,
      filesBucketName: state.bucketName,
      auditFile: localAuditDir(dataDir),
    },
    file,
    { onProgress, ...settings },
  );
  // The local S3's file of reports/<id>.json; a state.json of an older version names no directory.
  const reportFile =
    state.s3DataDir === undefined
      ? undefined
      : localObjectFile(state.s3DataDir, state.importBucketName, reportKey(report.importId));
  return {
    report,
    where: `the local stack's table (${state.dynamoDbEndpoint})`,
    ...(reportFile !== undefined && existsSync(reportFile) ? { reportFile } : {}),
  };
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const reason = awsSetupProblem(error) ?? (error instanceof Error ? error.message : error);
    console.error(`Import failed: ${String(reason)}`);
    process.exit(1);
  },
);
