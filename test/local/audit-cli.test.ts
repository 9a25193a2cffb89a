/**
 * Issue 24 item 3: `npm run audit` names people. The events keep the `sub`; the command shows
 * who that is from the local user pool (falling back to the sub), as a table on a terminal and
 * JSON lines in a pipe, says "no events" when there are none and refuses an unknown user.
 * Only the local Cognito runs here: the events are written by the test, as the functions write them.
 * Issue 30: the trail is a file per day; --since / --until read only the days asked for, and the
 * one-file trail of earlier versions is still read.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  AdminGetUserCommand,
  type CognitoIdentityProviderClient,
} from '@aws-sdk/client-cognito-identity-provider';
import { PROJECT_ROOT } from '../../core/project-root.ts';
import {
  cognitoClient,
  createUser,
  startCognito,
  type LocalCognito,
} from '../../local/cognito/user-pool.ts';
import { AUDIT_DIR, STATE_FILE } from '../../local/rig/state.ts';
import { CLEAN_ENV } from '../support/clean-env.ts';

const run = promisify(execFile);
const EMAIL = 'audit-reader@example.com';
/** A user who read, then left the pool: no name to find for this sub. */
const GONE_SUB = '00000000-0000-4000-8000-00000000dead';
const IMPORT_ID = '0123456789abcdef0123456789abcdef';

const lines = (events: object[]) => `${events.map((e) => JSON.stringify(e)).join('\n')}\n`;

let root: string;
let running: string;
let stopped: string;
let cognito: LocalCognito;
let client: CognitoIdentityProviderClient;
let sub: string;

function readEvent(
  who: string,
  entity: string,
  recordId: string | null,
  status: number,
  timestamp = '2026-01-02T03:04:05.000Z',
) {
  return {
    timestamp,
    level: 'INFO',
    message: 'audit',
    requestId: 'r',
    apiRequestId: 'a',
    route: `GET /${entity}s/{${entity}_id}`,
    entity,
    recordId,
    status,
    // Tokens of the local pool carry the sub as their username.
    sub: who,
    username: who,
    groups: [],
    sourceIp: '127.0.0.1',
    userAgent: 'test',
  };
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'audit-cli-'));
  cognito = await startCognito({ port: 0, dataDir: join(root, 'cognito') });
  client = cognitoClient(cognito.endpoint);
  await createUser(client, cognito.userPoolId, EMAIL);
  const user = await client.send(
    new AdminGetUserCommand({ UserPoolId: cognito.userPoolId, Username: EMAIL }),
  );
  sub = user.UserAttributes!.find((a) => a.Name === 'sub')!.Value!;

  const events = [
    readEvent(sub, 'transaction', '7', 200),
    readEvent(sub, 'customer', '1', 403),
    readEvent(GONE_SUB, 'transaction', '7', 200),
    {
      timestamp: '2026-01-02T03:04:06.000Z',
      level: 'INFO',
      message: 'import-audit',
      importId: IMPORT_ID,
      kind: 'record',
      entity: 'transaction',
      recordId: '7',
      action: 'put',
      line: 3,
    },
  ];
  const trail = lines(events);
  // Two data directories with the same trail: one whose rig runs (its state.json names the
  // pool; no table is asked for), one whose rig is stopped.
  running = join(root, 'running');
  stopped = join(root, 'stopped');
  for (const dir of [running, stopped]) {
    mkdirSync(join(dir, AUDIT_DIR), { recursive: true });
    writeFileSync(join(dir, AUDIT_DIR, '2026-01-02.jsonl'), trail);
  }
  writeFileSync(
    join(running, STATE_FILE),
    JSON.stringify({
      cognito: { endpoint: cognito.endpoint, userPoolId: cognito.userPoolId },
      tableName: 'unused',
      dynamoDbEndpoint: 'http://127.0.0.1:9',
    }),
  );
}, 60_000);

afterAll(async () => {
  client?.destroy();
  await cognito?.stop();
  rmSync(root, { recursive: true, force: true });
});

/** `node bin/audit.ts <args>`, stdout a pipe, as in a script. */
async function audit(args: string[], dataDir = running) {
  const env: NodeJS.ProcessEnv = { ...CLEAN_ENV, LOCAL_DATA_DIR: dataDir };
  try {
    const { stdout, stderr } = await run(process.execPath, ['bin/audit.ts', ...args], {
      cwd: PROJECT_ROOT,
      env,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const jsonLines = (stdout: string) =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

test("a user's events by e-mail, piped: JSON lines with the sub kept and the user named", async () => {
  const r = await audit(['user', EMAIL]);
  expect(r.code).toBe(0);
  const events = jsonLines(r.stdout);
  expect(events.map((e) => [e.entity, e.recordId, e.status, e.sub, e.user])).toEqual([
    ['transaction', '7', 200, sub, EMAIL],
    ['customer', '1', 403, sub, EMAIL],
  ]);
});

test("a record's events: each reader named from the pool, an unknown sub shown as itself", async () => {
  const r = await audit(['transaction', '7', '--json']);
  expect(r.code).toBe(0);
  const events = jsonLines(r.stdout);
  expect(events.filter((e) => e.message === 'audit').map((e) => [e.sub, e.user])).toEqual([
    [sub, EMAIL],
    [GONE_SUB, GONE_SUB],
  ]);
  // The import's change of the record is listed as written.
  expect(events.filter((e) => e.message === 'import-audit')).toHaveLength(1);
});

test('--table: one row per event under headings, with who, what and the outcome', async () => {
  const r = await audit(['transaction', '7', '--table']);
  expect(r.code).toBe(0);
  const lines = r.stdout.trimEnd().split('\n');
  expect(lines[0]).toMatch(/^TIME\s+USER\s+ACTION\s+RECORD\s+RESULT$/);
  expect(lines.slice(1).map((line) => line.split(/\s{2,}/))).toEqual([
    ['2026-01-02T03:04:05.000Z', EMAIL, 'read', 'transaction 7', '200'],
    ['2026-01-02T03:04:05.000Z', GONE_SUB, 'read', 'transaction 7', '200'],
    ['2026-01-02T03:04:06.000Z', `import ${IMPORT_ID}`, 'put', 'transaction 7', 'line 3'],
  ]);
});

test('on a terminal the table is the default', async () => {
  // script(1) gives the command a pseudo-terminal for its stdout.
  const env = { ...CLEAN_ENV, LOCAL_DATA_DIR: running };
  const command = `"${process.execPath}" bin/audit.ts customer 1`;
  const { stdout } = await run('script', ['-qec', command, '/dev/null'], {
    cwd: PROJECT_ROOT,
    env,
  });
  const lines = stdout.replace(/\r/g, '').trimEnd().split('\n');
  expect(lines[0]).toMatch(/^TIME\s+USER\s+ACTION\s+RECORD\s+RESULT$/);
  expect(lines[1]!.split(/\s{2,}/)).toEqual([
    '2026-01-02T03:04:05.000Z',
    EMAIL,
    'read',
    'customer 1',
    '403',
  ]);
});

test('a record nobody read: "no events" on stderr with what was asked, nothing on stdout, exit 0', async () => {
  const r = await audit(['transaction', '8']);
  expect(r).toEqual({
    code: 0,
    stdout: '',
    stderr: `audit: no events for transaction 8 in ${join(running, AUDIT_DIR)}\n`,
  });
});

test('a user the pool does not know and no event names: "unknown user", exit 1', async () => {
  const r = await audit(['user', 'nobody@example.com']);
  expect(r.code).toBe(1);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(
    /^audit: unknown user: nobody@example\.com is not in the local user pool/,
  );
  expect(r.stderr.split('\n')).toHaveLength(2);
});

test('a user no longer in the pool, by sub: the events, named by the sub', async () => {
  const r = await audit(['user', GONE_SUB]);
  expect(r.code).toBe(0);
  expect(jsonLines(r.stdout).map((e) => [e.recordId, e.user])).toEqual([['7', GONE_SUB]]);
});

test('the rig stopped: subs shown as they are; a user by e-mail cannot be told, exit 1', async () => {
  const r = await audit(['customer', '1'], stopped);
  expect(r.code).toBe(0);
  expect(jsonLines(r.stdout).map((e) => e.user)).toEqual([sub]);
  const byEmail = await audit(['user', EMAIL], stopped);
  expect(byEmail.code).toBe(1);
  expect(byEmail.stderr).toMatch(/the local rig is not running/);
});

describe('days (issue 30)', () => {
  /** One read of transaction 5 at noon UTC on each of 2026-01-01 .. 2026-01-05; rig stopped. */
  let dated: string;
  beforeAll(() => {
    dated = join(root, 'dated');
    mkdirSync(join(dated, AUDIT_DIR), { recursive: true });
    for (let day = 1; day <= 5; day += 1) {
      const date = `2026-01-0${day}`;
      const event = readEvent(GONE_SUB, 'transaction', '5', 200, `${date}T12:00:00.000Z`);
      writeFileSync(join(dated, AUDIT_DIR, `${date}.jsonl`), lines([event]));
    }
  });
  const days = async (...args: string[]) => {
    const r = await audit(['transaction', '5', '--json', ...args], dated);
    expect(r.code).toBe(0);
    return jsonLines(r.stdout).map((e) => String(e.timestamp).slice(0, 10));
  };

  test('--since and --until (days or times, with a space or =) pick the events between', async () => {
    const [all, since, until, times, oneDay] = await Promise.all([
      days(),
      days('--since', '2026-01-04'),
      days('--until=2026-01-02'),
      days('--since', '2026-01-02T12:00:00Z', '--until', '2026-01-03T11:59:59.999Z'),
      days('--since=2026-01-03', '--until=2026-01-03'),
    ]);
    expect(all).toEqual(['2026-01-01', '2026-01-02', '2026-01-03', '2026-01-04', '2026-01-05']);
    expect(since).toEqual(['2026-01-04', '2026-01-05']);
    expect(until).toEqual(['2026-01-01', '2026-01-02']);
    expect(times).toEqual(['2026-01-02']);
    expect(oneDay).toEqual(['2026-01-03']);
  });

  test('a time that is none, or a range that ends before it starts: exit 2, nothing read', async () => {
    const [word, noZone, reversed, missing] = await Promise.all([
      audit(['transaction', '5', '--since', 'yesterday'], dated),
      audit(['transaction', '5', '--until', '2026-01-02T10:00:00'], dated),
      audit(['transaction', '5', '--since', '2026-01-05', '--until', '2026-01-01'], dated),
      audit(['transaction', '5', '--since'], dated),
    ]);
    expect(word).toMatchObject({ code: 2, stdout: '' });
    expect(word.stderr).toMatch(/^audit: --since yesterday: give a UTC day \(2026-01-31\)/);
    expect(noZone.code).toBe(2);
    expect(noZone.stderr).toMatch(/^audit: --until 2026-01-02T10:00:00: give /);
    expect(reversed).toMatchObject({ code: 2, stdout: '' });
    expect(reversed.stderr).toMatch(/is after --until/);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^audit: usage: .*--since <time>.*\n.*every day is read\n$/);
  });
});
