/**
 * `.local/state.json`: where a running local stack (`npm start`) tells `npm run token` and
 * `npm run import` how to reach it. The one place that knows the file's name, the data
 * directory (LOCAL_DATA_DIR, default `.local` under the project root) and the file's shape.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PROJECT_ROOT } from '../lib/project-root';

export const STATE_FILE = 'state.json';
/** The local stack's audit trail (SPEC 8): one event a line, as the functions wrote them. */
export const AUDIT_FILE = 'audit.jsonl';

/** What `npm run token` and `npm run import` need to find a running stack. */
export interface LocalState {
  pid: number;
  startedAt: string;
  apiUrl: string;
  region: string;
  tableName: string;
  bucketName: string;
  /** The import drop (SPEC 9). */
  importBucketName: string;
  dynamoDbEndpoint: string;
  s3Endpoint: string;
  /** The zone the functions show times in, and so the zone a local import reads them in. */
  displayTimeZone: string;
  cognito: { endpoint: string; userPoolId: string; clientId: string; issuer: string };
}

/** No state file: the local stack is not running (or never started). */
export class LocalStackNotRunning extends Error {}

/** The local stack's data directory: LOCAL_DATA_DIR, else `.local` under the project root. */
export function localDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.LOCAL_DATA_DIR || join(PROJECT_ROOT, '.local'));
}

export function localAuditFile(dataDir = localDataDir()): string {
  return resolve(dataDir, AUDIT_FILE);
}

export function localStateFile(dataDir = localDataDir()): string {
  return resolve(dataDir, STATE_FILE);
}

/**
 * The running stack's state as written; its members unchecked (a file from an older version may
 * lack some: see incompleteState). Throws LocalStackNotRunning when there is no readable file.
 */
export function readLocalState(dataDir = localDataDir()): Partial<LocalState> {
  const file = localStateFile(dataDir);
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Partial<LocalState>;
  } catch {
    throw new LocalStackNotRunning(
      `the local stack is not running (no ${file}): start it with \`npm start\``,
    );
  }
}

/** For a state file that lacks what a command needs. */
export function incompleteState(dataDir = localDataDir()): Error {
  return new Error(`${localStateFile(dataDir)} is incomplete: restart \`npm start\``);
}

export function writeLocalState(dataDir: string, state: LocalState): void {
  writeFileSync(localStateFile(dataDir), `${JSON.stringify(state, null, 2)}\n`);
}

/** Only our own state file: a stale one must not outlive us, a newer one is not ours. */
export function removeOwnLocalState(dataDir: string): void {
  const file = localStateFile(dataDir);
  try {
    if ((JSON.parse(readFileSync(file, 'utf8')) as LocalState).pid === process.pid) rmSync(file);
  } catch {
    // already gone
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Refuses a second stack on the same data (two writers would corrupt it). */
export function assertNotRunning(dataDir: string): void {
  const file = localStateFile(dataDir);
  if (!existsSync(file)) return;
  try {
    const state = JSON.parse(readFileSync(file, 'utf8')) as Partial<LocalState>;
    if (typeof state.pid === 'number' && state.pid !== process.pid && isAlive(state.pid)) {
      throw new Error(
        `A local stack is already running (pid ${state.pid}, API ${state.apiUrl}) with the data in ${resolve(file, '..')}`,
      );
    }
  } catch (error) {
    if (error instanceof SyntaxError) return; // a torn file from a crash: not running
    throw error;
  }
}
