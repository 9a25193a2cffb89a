/**
 * Issue 30: the tools (token, access, audit, import) run from a second terminal without
 * LOCAL_DATA_DIR find a local rig started with another one, through the pointer it leaves in
 * the project's `.local/running/` (local/rig/state.ts); when they cannot tell which, they say which
 * LOCAL_DATA_DIR to set. Here with a home of the test's own (`home`, standing for `.local`),
 * then once through `npm run token` and the project's own `.local`.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../core/project-root.ts';
import {
  DEFAULT_DATA_DIR,
  LocalRigNotRunning,
  readLocalState,
  removeOwnRunningPointer,
  runningDataDir,
  runningElsewhere,
  writeRunningPointer,
} from '../../local/rig/state.ts';

const run = promisify(execFile);
const root = mkdtempSync(join(tmpdir(), 'running-rig-'));
let n = 0;

/** A data directory whose state.json names `pid` (this process: alive). */
function rigDir(pid: number = process.pid): string {
  const dir = join(root, `data-${(n += 1)}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'state.json'), JSON.stringify({ pid, apiUrl: 'http://127.0.0.1:1' }));
  return dir;
}

function home(): string {
  const dir = join(root, `home-${(n += 1)}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A pid no process has: one that has just exited. */
const deadPid = (): number => spawnSync(process.execPath, ['-e', '']).pid!;

/** The message readLocalState gives for `dataDir`, with `.local` standing at `at`. */
function notRunning(dataDir: string, at: string): string {
  try {
    readLocalState(dataDir, at);
  } catch (error) {
    expect(error).toBeInstanceOf(LocalRigNotRunning);
    return (error as Error).message;
  }
  throw new Error('readLocalState did not throw');
}

afterAll(() => rmSync(root, { recursive: true, force: true }));

test('no LOCAL_DATA_DIR, nothing in .local: the one rig a pointer names', () => {
  const at = home();
  const data = rigDir();
  expect(runningDataDir({}, at)).toBe(at);
  writeRunningPointer(data, at);
  expect(runningElsewhere(at)).toEqual([{ dataDir: data, pid: process.pid }]);
  expect(runningDataDir({}, at)).toBe(data);
  // LOCAL_DATA_DIR still decides when set.
  expect(runningDataDir({ LOCAL_DATA_DIR: join(root, 'other') }, at)).toBe(join(root, 'other'));
  removeOwnRunningPointer(data, at);
  expect(runningDataDir({}, at)).toBe(at);
});

test('a rig running in .local itself comes first; a rig started in .local leaves no pointer', () => {
  const at = home();
  writeFileSync(join(at, 'state.json'), JSON.stringify({ pid: process.pid }));
  writeRunningPointer(rigDir(), at);
  expect(runningDataDir({}, at)).toBe(at);
  writeRunningPointer(at, at);
  expect(runningElsewhere(at)).toHaveLength(1);
});

test('a pointer whose process is gone, or whose data directory now names another process, is no rig', () => {
  const at = home();
  const stopped = rigDir(deadPid());
  writeRunningPointer(stopped, at);
  const restarted = rigDir();
  writeRunningPointer(restarted, at);
  // As if the pointer's process died and another rig (another pid) now runs in that directory.
  writeFileSync(join(restarted, 'state.json'), JSON.stringify({ pid: deadPid() }));
  expect(runningElsewhere(at)).toEqual([]);
  expect(runningDataDir({}, at)).toBe(at);
  expect(notRunning(at, at)).toBe(
    `the local rig is not running (no ${join(at, 'state.json')}): start it with \`npm start\``,
  );
});

test('two rigs elsewhere: not running, and which LOCAL_DATA_DIR to set for each', () => {
  const at = home();
  const [a, b] = [rigDir(), rigDir()].sort() as [string, string];
  writeRunningPointer(b, at);
  writeRunningPointer(a, at);
  expect(runningDataDir({}, at)).toBe(at);
  expect(notRunning(at, at)).toBe(
    `the local rig is not running (no ${join(at, 'state.json')}): start it with \`npm start\`` +
      `; some are running with their data elsewhere: set one of ` +
      `LOCAL_DATA_DIR=${a} (pid ${process.pid}), LOCAL_DATA_DIR=${b} (pid ${process.pid})`,
  );
});

test('LOCAL_DATA_DIR set where no rig runs: which one to set instead', () => {
  const at = home();
  const data = rigDir();
  writeRunningPointer(data, at);
  const wrong = join(root, 'nothing-here');
  expect(runningDataDir({ LOCAL_DATA_DIR: wrong }, at)).toBe(wrong);
  expect(notRunning(wrong, at)).toContain(
    `; one is running with its data elsewhere: set LOCAL_DATA_DIR=${data} (pid ${process.pid})`,
  );
});

/** A developer's own rigs, in the project's `.local` or elsewhere, would change the answer. */
const projectRigsRun =
  existsSync(join(DEFAULT_DATA_DIR, 'state.json')) || runningElsewhere().length > 0;

(projectRigsRun ? test.skip : test)(
  'npm run token from another terminal, without LOCAL_DATA_DIR, reaches the rig through its pointer',
  async () => {
    // A rig's state that names no Cognito: the command says so, naming the file it read.
    const data = rigDir();
    // What this test makes in the project's `.local`, it removes (emptied directories only).
    const made = [DEFAULT_DATA_DIR, join(DEFAULT_DATA_DIR, 'running')].filter(
      (d) => !existsSync(d),
    );
    writeRunningPointer(data);
    try {
      const env: NodeJS.ProcessEnv = { PATH: process.env.PATH };
      const result = await run(process.execPath, ['bin/token.ts', 'teller@example.com'], {
        cwd: PROJECT_ROOT,
        env,
      }).then(
        () => ({ code: 0, stderr: '' }),
        (error: { code: number; stderr: string }) => error,
      );
      expect(result.code).toBe(1);
      expect(result.stderr).not.toContain('is not running');
      expect(result.stderr).toContain(`${join(data, 'state.json')} is incomplete`);
    } finally {
      removeOwnRunningPointer(data);
      for (const dir of made.reverse()) {
        try {
          rmdirSync(dir);
        } catch {
          // another rig's pointer arrived meanwhile: the directory stays
        }
      }
    }
  },
);
