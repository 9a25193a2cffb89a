/**
 * `npm run import -- <file>` (SPEC 6): into the local stack's table, or into a deployed table
 * when TABLE_NAME is set (with AWS credentials and region from the environment).
 */
import { basename } from 'node:path';
import { createDocumentClient } from '../import/document-client';
import { InvalidFileError, importFile } from '../import/importer';
import {
  incompleteState,
  LocalStackNotRunning,
  readLocalState,
  type LocalState,
} from '../local/state';

/** The running local stack's, when TABLE_NAME names no deployed table. */
function localState(): Partial<LocalState> {
  try {
    return readLocalState();
  } catch (error) {
    if (!(error instanceof LocalStackNotRunning)) throw error;
    throw new Error(
      'The local stack has not been started: run `npm start`, or set TABLE_NAME for a deployed table',
      { cause: error },
    );
  }
}

function target(): {
  tableName: string;
  client: ReturnType<typeof createDocumentClient>;
  displayTimeZone: string;
  where: string;
} {
  const io = { maxAttempts: 5, requestTimeoutMs: 10_000 };
  if (process.env.TABLE_NAME) {
    const region = process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
    if (!region) throw new Error('Set AWS_REGION to import into a deployed table');
    return {
      tableName: process.env.TABLE_NAME,
      client: createDocumentClient({ region, endpoint: process.env.DYNAMODB_ENDPOINT, ...io }),
      displayTimeZone: process.env.DISPLAY_TIME_ZONE ?? 'UTC',
      where: `table ${process.env.TABLE_NAME}`,
    };
  }
  const state = localState();
  if (!state.tableName || !state.dynamoDbEndpoint) throw incompleteState();
  return {
    tableName: state.tableName,
    client: createDocumentClient({
      region: 'us-east-1',
      endpoint: state.dynamoDbEndpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      ...io,
    }),
    // Times are read in the zone the local functions show them in (SPEC 3.5).
    displayTimeZone: state.displayTimeZone ?? 'UTC',
    where: `the local stack's table (${state.dynamoDbEndpoint})`,
  };
}

/**
 * Progress on stderr: on a terminal one live line; otherwise (CI logs, nohup) a plain line every
 * IMPORT_PROGRESS_SECONDS (default 5), so that a short import prints nothing.
 */
function progressReporter(): { update: (done: number, total: number) => void; end: () => void } {
  const tty = process.stderr.isTTY;
  const everyMs = Number(process.env.IMPORT_PROGRESS_SECONDS ?? 5) * 1000;
  const started = performance.now();
  let last = tty ? 0 : started;
  let shown = false;
  return {
    update: (done, total) => {
      const now = performance.now();
      if (!tty && now - last < everyMs) return;
      last = now;
      const rate = done / Math.max((now - started) / 1000, 0.001);
      const text = `Importing: ${done} of ${total} records (${rate.toFixed(0)}/s)`;
      process.stderr.write(tty ? `\r${text}` : `${text}\n`);
      shown = true;
    },
    end: () => {
      if (tty && shown) process.stderr.write('\n');
    },
  };
}

async function main(): Promise<number> {
  const file = process.argv[2];
  if (!file || process.argv.length > 3) {
    console.error('Usage: npm run import -- <file.jsonl>');
    return 2;
  }
  const { tableName, client, displayTimeZone, where } = target();
  const progress = progressReporter();
  try {
    const summary = await importFile(file, {
      client,
      tableName,
      displayTimeZone,
      onProblem: (problem) => console.error(problem),
      onProgress: progress.update,
    });
    progress.end();
    const deleted =
      summary.deletes === 0
        ? ''
        : `, deleted ${summary.deletes} (${summary.notFound} of them not there)`;
    console.log(
      `Imported ${summary.records} records (${summary.transactions} transactions, ${summary.customers} customers)${deleted} from ${basename(file)} into ${where}`,
    );
    return 0;
  } catch (error) {
    if (error instanceof InvalidFileError) {
      console.error(error.message);
      return 1;
    }
    throw error;
  } finally {
    client.destroy();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`Import failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
