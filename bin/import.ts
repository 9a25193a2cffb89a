/**
 * `npm run import -- <file> [--stage <name>]` (SPEC 5, 9): the file into an import drop, the
 * import followed with a progress line, its report printed; exit 0 only when imported whole.
 * Without --stage, the local stack's drop, the workflow run in this process
 * (local/import-runner.ts); with it, the stage's drop, found from its stack's outputs
 * (import/stage-drop.ts). Records never reach a deployed table from this machine: TABLE_NAME is
 * refused (README).
 */
import { accessSync, constants, statSync } from 'node:fs';
import { basename } from 'node:path';
import type { ImportReport } from '../import/steps';
import type { Progress } from '../import/drop';
import { ConfigError } from '../functions/shared/config';
import { dropFile, localDropOptionsFromEnv } from '../local/import-runner';
import {
  incompleteState,
  localAuditFile,
  LocalStackNotRunning,
  readLocalState,
  type LocalState,
} from '../local/state';

const USAGE = 'Usage: npm run import -- <file.jsonl> [--stage <name>]';

/** The running local stack's. */
function localState(): Partial<LocalState> {
  try {
    return readLocalState();
  } catch (error) {
    if (!(error instanceof LocalStackNotRunning)) throw error;
    throw new Error(
      'The local stack has not been started: run `npm start`, or give --stage <name> for a deployed stage',
      { cause: error },
    );
  }
}

/**
 * Progress on stderr: on a terminal one live line; otherwise (CI logs, nohup) a plain line every
 * IMPORT_PROGRESS_SECONDS (default 5), so that a short import prints nothing.
 */
function progressReporter(): { update: (p: Progress) => void; end: () => void } {
  const tty = process.stderr.isTTY;
  const everyMs = Number(process.env.IMPORT_PROGRESS_SECONDS ?? 5) * 1000;
  const started = performance.now();
  let last = tty ? 0 : started;
  let shown = false;
  return {
    update: ({ phase, parts, partsDone, records }) => {
      const now = performance.now();
      if (!tty && now - last < everyMs) return;
      last = now;
      const text =
        phase === 'checking' || phase === 'writing'
          ? `Import ${phase}: ${partsDone} of ${parts} parts, ${records} records`
          : `Import ${phase}`;
      process.stderr.write(tty ? `\r\x1b[K${text}` : `${text}\n`);
      shown = true;
    },
    end: () => {
      if (tty && shown) process.stderr.write('\n');
    },
  };
}

/** The report as a person reads it: problems on stderr, the outcome and counts on stdout. */
function printReport(report: ImportReport, file: string, where: string): number {
  const { counts } = report;
  if (report.outcome === 'imported') {
    const deleted =
      counts.deletes === 0
        ? ''
        : `, deleted ${counts.deletes} (${counts.notFound} of them not there)`;
    console.log(
      `Imported ${counts.records} records (${counts.transactions} transactions, ${counts.customers} customers)${deleted} from ${basename(file)} into ${where}`,
    );
  } else if (report.outcome === 'rejected') {
    for (const problem of report.problems) console.error(problem);
    const n = report.problemCount;
    const more = n > report.problems.length ? ` (the first ${report.problems.length} listed)` : '';
    console.error(`The file has ${n} problem${n === 1 ? '' : 's'}${more}; nothing was written`);
  } else {
    console.error(`The import failed: ${report.error ?? 'see the report'}`);
  }
  console.error(
    `Report: reports/${report.importId}.json (SHA-256 ${report.sha256 ?? 'unknown'}, ${report.startedAt ?? '?'} to ${report.endedAt})`,
  );
  return report.outcome === 'imported' ? 0 : 1;
}

function parseArgs(argv: string[]): { file: string; stage: string | undefined } | undefined {
  const args = [...argv];
  let stage: string | undefined;
  const at = args.indexOf('--stage');
  if (at !== -1) {
    stage = args[at + 1];
    if (!stage) return undefined;
    args.splice(at, 2);
  }
  if (args.length !== 1 || args[0]!.startsWith('--')) return undefined;
  return { file: args[0]!, stage };
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
      'TABLE_NAME is no longer used: records reach a deployed table only through its stage: `npm run import -- <file> --stage <name>` (README)',
    );
    return 2;
  }
  const { file, stage } = args;
  const unreadable = fileProblem(file);
  if (unreadable) {
    console.error(unreadable);
    return 2;
  }
  let settings;
  try {
    settings = stage === undefined ? localDropOptionsFromEnv() : {};
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    return 2;
  }
  const progress = progressReporter();
  if (stage !== undefined) {
    const { importIntoStage } = await import('../import/stage-drop');
    const report = await importIntoStage(stage, file, progress.update);
    progress.end();
    return printReport(report, file, `stage ${stage}`);
  }
  const state = localState();
  if (
    !state.tableName ||
    !state.dynamoDbEndpoint ||
    !state.s3Endpoint ||
    !state.importBucketName ||
    !state.displayTimeZone
  )
    throw incompleteState();
  const report = await dropFile(
    {
      s3Endpoint: state.s3Endpoint,
      importBucketName: state.importBucketName,
      dynamoDbEndpoint: state.dynamoDbEndpoint,
      tableName: state.tableName,
      // Times are read in the zone the local functions show them in (SPEC 3.5).
      displayTimeZone: state.displayTimeZone,
      auditFile: localAuditFile(),
    },
    file,
    { onProgress: progress.update, ...settings },
  );
  progress.end();
  return printReport(report, file, `the local stack's table (${state.dynamoDbEndpoint})`);
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`Import failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
