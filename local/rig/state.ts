/**
 * `.local/state.json`: where a running local rig (`npm start`) tells `npm run token` and
 * `npm run import` how to reach it. The one place that knows the file's name, the data
 * directory (LOCAL_DATA_DIR, default `.local` under the project root) and the file's shape,
 * and where in the data directory the audit trail is.
 *
 * Finding the rig from another terminal: a rig started with another LOCAL_DATA_DIR leaves a
 * pointer in the project's own `.local/running/` (a place every terminal knows), a small file
 * naming its data directory and pid, and removes it when it stops. The tools (token, access,
 * audit, import) run without LOCAL_DATA_DIR use `.local/` when a rig runs there, else the one
 * rig a pointer names whose process is alive and whose state.json names that pid; otherwise
 * they say the rig is not running, and which LOCAL_DATA_DIR to set for each one that is.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PROJECT_ROOT } from '../../core/project-root.ts';
import { DEFAULT_TIME_ZONE } from '../../core/settings.ts';

export const STATE_FILE = 'state.json';
/** Written once the demo data is loaded, so that it is loaded only on a first start. */
export const SEED_MARKER = 'seeded.json';
/** The local rig's audit trail (SPEC 8): a directory of day files (local/tools/audit-log.ts). */
export const AUDIT_DIR = 'audit';
/** The secret the local functions seal lookup cursors with (SPEC 10): made on first start. */
export const CURSOR_KEY_FILE = 'cursor-key';

/** What `npm run token` and `npm run import` need to find a running rig. */
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
  /**
   * Its offsets as the functions get them (DISPLAY_TIME_ZONE_OFFSETS, core/function-env.ts),
   * absent for a zone without a table: worked out once at start, not on every import.
   */
  displayTimeZoneOffsets?: string;
  cognito: {
    endpoint: string;
    userPoolId: string;
    clientId: string;
    issuer: string;
    /** The demo users' TOTP secrets, by username: `npm run token` answers their challenge. */
    demoTotpSecrets: Record<string, string>;
  };
  /** The local S3's directory: each object's bytes are a file under it (local/s3/s3-client.ts). */
  s3DataDir: string;
}

/** No state file: the local rig is not running (or never started). */
export class LocalRigNotRunning extends Error {
  /** Which LOCAL_DATA_DIR to set for the rigs running elsewhere; '' when none runs. */
  readonly hint: string;
  constructor(file: string, hint: string) {
    super(`the local rig is not running (no ${file}): start it with \`npm start\`${hint}`);
    this.hint = hint;
  }
}

/** The project's own data directory: the default one, and where the pointers are. */
export const DEFAULT_DATA_DIR = join(PROJECT_ROOT, '.local');
const POINTER_DIR = 'running';

/** The local rig's data directory: LOCAL_DATA_DIR, else `.local` under the project root. */
export function localDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.LOCAL_DATA_DIR || DEFAULT_DATA_DIR);
}

/**
 * The data directory of the rig the tools talk to: LOCAL_DATA_DIR when set; else `.local` when
 * a rig runs there; else the one rig running elsewhere that left a pointer; else `.local`
 * (and readLocalState says which LOCAL_DATA_DIR to set, when rigs run elsewhere).
 */
export function runningDataDir(
  env: NodeJS.ProcessEnv = process.env,
  home = DEFAULT_DATA_DIR,
): string {
  if (env.LOCAL_DATA_DIR) return resolve(env.LOCAL_DATA_DIR);
  if (runsIn(home)) return resolve(home);
  const elsewhere = runningElsewhere(home);
  return elsewhere.length === 1 ? elsewhere[0]!.dataDir : resolve(home);
}

/** Where the local rig's audit events go: `.local/audit/`, one file per UTC day. */
export function localAuditDir(dataDir = runningDataDir()): string {
  return resolve(dataDir, AUDIT_DIR);
}

export function localStateFile(dataDir = runningDataDir()): string {
  return resolve(dataDir, STATE_FILE);
}

/**
 * The running rig's state as written; its members unchecked (a file from an older version may
 * lack some: see incompleteState). Throws LocalRigNotRunning when there is no readable file.
 */
export function readLocalState(
  dataDir = runningDataDir(),
  home = DEFAULT_DATA_DIR,
): Partial<LocalState> {
  const file = localStateFile(dataDir);
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Partial<LocalState>;
  } catch {
    throw new LocalRigNotRunning(file, elsewhereHint(resolve(dataDir), home));
  }
}

/** For a state file that lacks what a command needs. */
export function incompleteState(dataDir = runningDataDir()): Error {
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

/** Refuses a second rig on the same data (two writers would corrupt it). */
export function assertNotRunning(dataDir: string): void {
  const file = localStateFile(dataDir);
  if (!existsSync(file)) return;
  try {
    const state = JSON.parse(readFileSync(file, 'utf8')) as Partial<LocalState>;
    if (typeof state.pid === 'number' && state.pid !== process.pid && isAlive(state.pid)) {
      throw new Error(
        `A local rig is already running (pid ${state.pid}, API ${state.apiUrl}) with the data in ${resolve(file, '..')}`,
      );
    }
  } catch (error) {
    if (error instanceof SyntaxError) return; // a torn file from a crash: not running
    throw error;
  }
}

/** A rig's pointer: one file per data directory, so a restart there replaces its own. */
function pointerFile(dataDir: string, home: string): string {
  const name = createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 16);
  return join(home, POINTER_DIR, `${name}.json`);
}

/** Leaves this process's pointer for tools run from other terminals (none for `.local` itself). */
export function writeRunningPointer(dataDir: string, home = DEFAULT_DATA_DIR): void {
  if (resolve(dataDir) === resolve(home)) return;
  mkdirSync(join(home, POINTER_DIR), { recursive: true });
  const pointer = { dataDir: resolve(dataDir), pid: process.pid };
  writeFileSync(pointerFile(dataDir, home), `${JSON.stringify(pointer)}\n`);
}

/** Only our own pointer: a newer rig on the same data directory left its own. */
export function removeOwnRunningPointer(dataDir: string, home = DEFAULT_DATA_DIR): void {
  const file = pointerFile(dataDir, home);
  try {
    if ((JSON.parse(readFileSync(file, 'utf8')) as { pid?: unknown }).pid === process.pid)
      rmSync(file);
  } catch {
    // already gone
  }
}

/**
 * Whether a rig runs with its data in `dataDir`: its state file names a live process (`pid`,
 * when given: a pointer whose process died and whose pid was reused names no rig). A state
 * file without a pid (written by hand, or by the bench) counts as running.
 */
function runsIn(dataDir: string, pid?: number): boolean {
  let state: Partial<LocalState>;
  try {
    state = JSON.parse(readFileSync(localStateFile(dataDir), 'utf8')) as Partial<LocalState>;
  } catch {
    return false;
  }
  if (typeof state.pid !== 'number') return pid === undefined;
  return (pid === undefined || state.pid === pid) && isAlive(state.pid);
}

/** The rigs running elsewhere that left a pointer in `home`, by data directory. */
export function runningElsewhere(home = DEFAULT_DATA_DIR): { dataDir: string; pid: number }[] {
  let names: string[];
  try {
    names = readdirSync(join(home, POINTER_DIR)).filter((name) => name.endsWith('.json'));
  } catch {
    return [];
  }
  const found: { dataDir: string; pid: number }[] = [];
  for (const name of names) {
    try {
      const p = JSON.parse(readFileSync(join(home, POINTER_DIR, name), 'utf8')) as {
        dataDir?: unknown;
        pid?: unknown;
      };
      if (typeof p.dataDir === 'string' && typeof p.pid === 'number' && runsIn(p.dataDir, p.pid))
        found.push({ dataDir: p.dataDir, pid: p.pid });
    } catch {
      // a torn or foreign file: no pointer
    }
  }
  return found.sort((a, b) => a.dataDir.localeCompare(b.dataDir));
}

/** Which LOCAL_DATA_DIR to set for the rigs running other than in `dataDir`; '' for none. */
function elsewhereHint(dataDir: string, home: string): string {
  const others = [
    ...(runsIn(home) ? [{ dataDir: resolve(home), pid: undefined }] : []),
    ...runningElsewhere(home),
  ].filter((o) => o.dataDir !== dataDir);
  const set = others.map((o) => `LOCAL_DATA_DIR=${o.dataDir}${o.pid ? ` (pid ${o.pid})` : ''}`);
  if (set.length === 0) return '';
  return set.length === 1
    ? `; one is running with its data elsewhere: set ${set[0]}`
    : `; some are running with their data elsewhere: set one of ${set.join(', ')}`;
}

/** The zone a data directory's records were read in (SPEC 3.5), kept beside them. */
const ZONE_FILE = 'display-time-zone';
/** What a data directory made before its zone was kept was read in: the default then. */
const EARLIER_DEFAULT_ZONE = 'UTC';

/**
 * Times are read in the display zone at import and shown in it: records imported in one zone and
 * shown in another would show other times. A table this start made takes the zone it is given;
 * one kept from an earlier start must be shown in the zone it was read in.
 */
export function keepZone(dataDir: string, zone: string, freshTable: boolean): void {
  const file = join(dataDir, ZONE_FILE);
  const kept = freshTable
    ? undefined
    : existsSync(file)
      ? readFileSync(file, 'utf8').trim()
      : existsSync(join(dataDir, SEED_MARKER))
        ? EARLIER_DEFAULT_ZONE
        : undefined;
  if (kept !== undefined && kept !== zone)
    throw new Error(
      `${dataDir} holds records whose times were read in ${kept}, not ${zone} (DISPLAY_TIME_ZONE, ` +
        `default ${DEFAULT_TIME_ZONE}). Start with DISPLAY_TIME_ZONE=${kept} to keep them as they ` +
        `are, or move ${dataDir} aside (or delete it) to start afresh in ${zone} and import your ` +
        'files again.',
    );
  if (kept === undefined || !existsSync(file)) writeFileSync(file, `${zone}\n`);
}

/** The local rig's cursor secret, made (random, readable by its owner only) when missing. */
export function localCursorKey(dataDir: string): string {
  const file = resolve(dataDir, CURSOR_KEY_FILE);
  if (!existsSync(file))
    writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  return readFileSync(file, 'utf8').trim();
}
