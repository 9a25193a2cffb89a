/**
 * Issue 23 item 5: `npm start` checks every setting it passes on before anything starts. A bad
 * one is one line naming the variable, the value and what is allowed, exit 2, quickly, and
 * nothing is left behind: no process of its group, no data directory.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../core/project-root.ts';
import { CLEAN_ENV } from '../support/clean-env.ts';

const dir = mkdtempSync(join(tmpdir(), 'start-settings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
/** Well past Node.js's start on a busy machine, well short of a rig's start (Java, Cognito, seed). */
const QUICK_MS = 20_000;
/** How long the group may take to be gone after its leader exits. */
const GRACE_MS = 2_000;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  /** Whether any process of the command's group was still there after it exited. */
  leftRunning: boolean;
}

/** `node local/rig/start.ts` in its own process group, killed whole if it does not exit quickly. */
function start(env: Record<string, string>, dataDir = join(dir, 'data')): Promise<Run> {
  const began = Date.now();
  const child = spawn(process.execPath, ['local/rig/start.ts'], {
    cwd: PROJECT_ROOT,
    env: {
      ...CLEAN_ENV,
      LOCAL_DATA_DIR: dataDir,
      PORT: '0',
      DYNAMODB_PORT: '0',
      COGNITO_PORT: '0',
      S3_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const group = -child.pid!;
  const kill = setTimeout(() => process.kill(group, 'SIGKILL'), QUICK_MS);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) =>
    child.on('close', async (status) => {
      clearTimeout(kill);
      const ms = Date.now() - began;
      resolve({ status, stdout, stderr, ms, leftRunning: await groupOutlives(group) });
    }),
  );
}

/**
 * Whether a process of the group is still there a moment after its leader exited: a child such
 * as esbuild's service ends when its pipe closes, a few milliseconds later, which is not being
 * left running.
 */
async function groupOutlives(group: number): Promise<boolean> {
  for (let waited = 0; waited <= GRACE_MS; waited += 50) {
    try {
      process.kill(group, 0);
    } catch {
      return false;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  process.kill(group, 'SIGKILL'); // leave nothing behind, whatever the test says
  return true;
}

function expectRefused(run: Run, ...said: (string | RegExp)[]): void {
  expect({ status: run.status, stdout: run.stdout }).toEqual({ status: 2, stdout: '' });
  expect(run.stderr.split('\n')).toHaveLength(2); // one line and its newline
  for (const s of said) expect(run.stderr).toMatch(s);
  expect(run.stderr).not.toContain('    at ');
  expect(run.ms).toBeLessThan(QUICK_MS);
  expect(run.leftRunning).toBe(false);
}

test.each([
  ['READ_BUDGET_CUSTOMERS', '1000000', 'must be a whole number from 1 to 100000'],
  ['READ_BUDGET_TRANSACTIONS', '-5', 'must be a whole number from 1 to 100000'],
  ['READ_BUDGET_WINDOW_SECONDS', '3601', 'must be a whole number from 1 to 3600'],
  ['DISPLAY_TIME_ZONE', 'Mars/Olympus', 'must be an IANA time zone'],
  ['SIGNATURE_URL_TTL_SECONDS', '0', 'must be an integer from 1 to 3600'],
  ['CURRENCY', 'peso', 'must be an ISO 4217 currency code of three capital letters, such as PHP'],
  ['PORT', '70000', 'must be a port number from 1 to 65535, or 0 for any free port'],
  ['DYNAMODB_PORT', 'eight', 'must be a port number from 1 to 65535, or 0 for any free port'],
  ['COGNITO_PORT', '-1', 'must be a port number from 1 to 65535, or 0 for any free port'],
  ['S3_PORT', '4569.5', 'must be a port number from 1 to 65535, or 0 for any free port'],
])('%s=%s: refused in one line before anything starts', async (name, value, allowed) => {
  const dataDir = join(dir, `data-${name}`);
  const run = await start({ [name]: value }, dataDir);
  expectRefused(run, `${name} ${allowed}`, `got: ${JSON.stringify(value)}`);
  expect(existsSync(dataDir)).toBe(false);
});

test('LOCAL_DATA_DIR that is a file: refused, naming it', async () => {
  const file = join(dir, 'a-file');
  writeFileSync(file, '');
  expectRefused(
    await start({}, file),
    'LOCAL_DATA_DIR must be a writable directory',
    `${JSON.stringify(file)} is not a directory`,
  );
});

test('two variables with the same port: refused, naming both', async () => {
  const dataDir = join(dir, 'data-same');
  const run = await start({ DYNAMODB_PORT: '45678', S3_PORT: '45678' }, dataDir);
  expectRefused(run, 'DYNAMODB_PORT and S3_PORT are both 45678: each needs its own port');
  expect(existsSync(dataDir)).toBe(false);
});

describe('a port that is taken', () => {
  let server: Server;
  let taken: number;
  beforeAll(async () => {
    server = createServer();
    await new Promise<void>((resolve) => server.listen(0, resolve));
    taken = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('refused, naming the variable and the port, with the way out', async () => {
    const dataDir = join(dir, 'data-taken');
    const run = await start({ COGNITO_PORT: String(taken) }, dataDir);
    expectRefused(
      run,
      `Port ${taken} for the local Cognito (COGNITO_PORT) is already in use`,
      'set COGNITO_PORT to a free port, or 0 for any free port',
    );
    expect(existsSync(dataDir)).toBe(false);
  });
});

test('an empty variable is as if unset (the rig passes none on)', async () => {
  // Refused for the budget alone: the empty zone and TTL were not taken for values.
  const run = await start({
    DISPLAY_TIME_ZONE: '',
    SIGNATURE_URL_TTL_SECONDS: '',
    READ_BUDGET_CUSTOMERS: '0',
  });
  expectRefused(run, /^READ_BUDGET_CUSTOMERS must be/);
});

test('startLocalRig itself refuses a setting the functions would refuse, before it starts anything', async () => {
  const { startLocalRig } = await import('../../local/rig/rig.ts');
  const dataDir = join(dir, 'data-rig');
  await expect(
    startLocalRig({ dataDir, env: { READ_BUDGET_WINDOW_SECONDS: '0' }, seedFile: false }),
  ).rejects.toThrow('READ_BUDGET_WINDOW_SECONDS must be a whole number from 1 to 3600, got: "0"');
  expect(existsSync(dataDir)).toBe(false);
});
