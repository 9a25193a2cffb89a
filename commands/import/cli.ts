/**
 * `npm run import -- <file> [--stage <name> | --stack <name>]` (SPEC 5, 9): the file into an
 * import drop, the import followed with a progress line, its report printed; exit 0 only when
 * imported whole. Without a flag, the local rig's drop, the workflow run in this process
 * (local/step-functions/import-runner.ts); with one, a deployed stack's drop, found from its outputs
 * (./stage-drop.ts): --stack names the CloudFormation stack (the default stack is
 * `CurrencyExchangeReadApi`), --stage <name> is short for --stack CurrencyExchangeReadApi-<name>.
 * Records never reach a deployed table from this machine: TABLE_NAME is refused (README).
 */
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { awsSetupProblem } from '../aws-setup.ts';
import type { Progress } from '../../import/progress.ts';
import { reportKey } from '../../import/steps/work-folder.ts';
import { type ImportReport } from '../../import/steps/step.ts';
import { progressLine } from './progress-line.ts';
import { printReport, printUnreported } from './report-lines.ts';
import { ConfigError, positiveFromEnv, zoneOffsetsFromEnv } from '../../core/env.ts';
import { makeStage } from '../../stage/stage.ts';
import { dropFile, localDropOptionsFromEnv } from './local-drop.ts';
import { localObjectFile } from '../../local/s3/s3-client.ts';
import {
  incompleteState,
  localAuditDir,
  LocalRigNotRunning,
  readLocalState,
  runningDataDir,
  type LocalState,
} from '../../local/rig/state.ts';

const USAGE = 'Usage: npm run import -- <file.jsonl> [--stage <name> | --stack <name>]';

/** The running local rig's (in `dataDir`). */
function localState(dataDir: string): Partial<LocalState> {
  try {
    return readLocalState(dataDir);
  } catch (error) {
    if (!(error instanceof LocalRigNotRunning)) throw error;
    throw new Error(
      `The local rig has not been started: run \`npm start\`${error.hint}, or give --stage <name> or --stack <name> for a deployed stack`,
      { cause: error },
    );
  }
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

function parseArgs(argv: readonly string[]): Args | undefined {
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

/**
 * The command's exit status, its report printed. An error that ends it early is one line,
 * `Import failed: ` and why (what AWS setup is missing, when that is why), and exit 1.
 */
export async function importCommand(argv: readonly string[]): Promise<number> {
  try {
    return await importFile(argv);
  } catch (error) {
    const reason = awsSetupProblem(error) ?? (error instanceof Error ? error.message : error);
    console.error(`Import failed: ${String(reason)}`);
    return 1;
  }
}

async function importFile(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv);
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
      const { importIntoStack } = await import('./stage-drop.ts');
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

/** Where state.json keeps the zone's table (local/rig/state.ts), named so in its error. */
const STATE_OFFSETS = "state.json's displayTimeZoneOffsets";

/** Into the running local rig's drop, the workflow run here. */
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
      displayTimeZoneOffsets: zoneOffsetsFromEnv(
        { [STATE_OFFSETS]: state.displayTimeZoneOffsets },
        STATE_OFFSETS,
        state.displayTimeZone,
      ),
      filesBucketName: state.bucketName,
      auditFile: localAuditDir(dataDir),
    },
    file,
    { onProgress, ...settings },
  );
  // The local S3's file of reports/<id>.json; a state.json without the local S3 (the bench's) names none.
  const reportFile =
    state.s3DataDir === undefined
      ? undefined
      : localObjectFile(state.s3DataDir, state.importBucketName, reportKey(report.importId));
  return {
    report,
    where: `the local rig's table (${state.dynamoDbEndpoint})`,
    ...(reportFile !== undefined && existsSync(reportFile) ? { reportFile } : {}),
  };
}
