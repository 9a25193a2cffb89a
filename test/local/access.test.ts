/**
 * `npm run access` (SPEC 8) against the local stack, run as a user runs it, with real tokens from
 * the local Cognito: what each verb changes in Cognito and in the table, that an unknown user
 * changes nothing, and (describe 'over HTTP') what the API then answers to the old tokens.
 */
import { jest } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  AdminAddUserToGroupCommand,
  AdminGetUserCommand,
  AdminListGroupsForUserCommand,
  InitiateAuthCommand,
  ListUsersCommand,
  type CognitoIdentityProviderClient,
} from '@aws-sdk/client-cognito-identity-provider';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PROJECT_ROOT } from '../../core/project-root';
import { CUSTOMER_READERS_GROUP } from '../../core/groups';
import {
  cognitoClient,
  createUser,
  DEMO_PASSWORD,
  signInTokens,
} from '../../local/cognito/user-pool';
import { startLocalStack, type LocalStack } from '../../local/stack/stack';
import { startCognitoFaultProxy } from '../support/cognito-fault-proxy';

const run = promisify(execFile);
// Each test runs `npm run access` (a tsx process) once or several times: seconds each on a quiet
// machine, tens of seconds with two busy loops beside the run.
jest.setTimeout(120_000);

let dataDir: string;
let stack: LocalStack;
let cognito: CognitoIdentityProviderClient;
let dynamoDb: DynamoDBClient;
// Loaded once the stack has started: jest's ES module linker fails when this test and the stack's
// own dynamic import load the SDK at the same time.
let sdk: typeof import('@aws-sdk/client-dynamodb');

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'access-test-'));
  stack = await startLocalStack({ port: 0, dataDir, inMemory: true, log: () => undefined });
  cognito = cognitoClient(stack.cognito.endpoint);
  sdk = await import('@aws-sdk/client-dynamodb');
  dynamoDb = new sdk.DynamoDBClient({
    region: 'us-east-1',
    endpoint: stack.dynamoDbEndpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}, 90_000);

afterAll(async () => {
  cognito?.destroy();
  dynamoDb?.destroy();
  await stack?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

interface CommandOptions {
  /** A data directory whose state.json points elsewhere (e.g. at a fault proxy). */
  dataDir?: string;
  /** The machine's clock this far off, in ms (test/support/skewed-clock.ts). */
  clockSkewMs?: number;
}

/** `node --import tsx bin/<name>.ts <args>` against this test's stack, as `npm run <name>` runs it. */
async function command(
  name: 'access' | 'audit' | 'token',
  args: readonly string[],
  options: CommandOptions = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, LOCAL_DATA_DIR: options.dataDir ?? dataDir };
  for (const name of ['NODE_OPTIONS', 'USER_POOL_ID', 'TABLE_NAME']) delete env[name];
  const preload: string[] = [];
  if (options.clockSkewMs !== undefined) {
    env.CLOCK_SKEW_MS = String(options.clockSkewMs);
    preload.push('--import', join(PROJECT_ROOT, 'test/support/skewed-clock.ts'));
  }
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      [...preload, '--import', 'tsx', `bin/${name}.ts`, ...args],
      { cwd: PROJECT_ROOT, env },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const access = (...args: string[]) => command('access', args);

/** A staff user of the local pool made for one test, so that tests do not share a user. */
async function staffUser(
  email: string,
  groups: readonly string[] = [],
): Promise<{ email: string; username: string; sub: string }> {
  const userPoolId = stack.cognito.userPoolId;
  await createUser(cognito, userPoolId, email);
  for (const group of groups) {
    await cognito.send(
      new AdminAddUserToGroupCommand({ UserPoolId: userPoolId, Username: email, GroupName: group }),
    );
  }
  const user = await cognito.send(
    new AdminGetUserCommand({ UserPoolId: userPoolId, Username: email }),
  );
  const sub = user.UserAttributes!.find((a) => a.Name === 'sub')!.Value!;
  return { email, username: user.Username!, sub };
}

interface Tokens {
  access: string;
  refresh: string;
  iat: number;
}

/** Each test user's TOTP secret, from their first sign-in (MFA required: they enrol then). */
const totpSecrets = new Map<string, string>();

async function signIn(email: string): Promise<Tokens> {
  const tokens = await signInTokens({
    client: cognito,
    clientId: stack.cognito.clientId,
    username: email,
    password: DEMO_PASSWORD,
    totpSecret: totpSecrets.get(email),
    enrol: true,
  });
  if (tokens.enrolledSecret) totpSecrets.set(email, tokens.enrolledSecret);
  const access = tokens.accessToken;
  return { access, refresh: tokens.refreshToken, iat: claims(access).iat };
}

function claims(token: string): { iat: number; sub: string; [claim: string]: unknown } {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
}

async function refresh(refreshToken: string): Promise<string> {
  const result = await cognito.send(
    new InitiateAuthCommand({
      AuthFlow: 'REFRESH_TOKEN_AUTH',
      ClientId: stack.cognito.clientId,
      AuthParameters: { REFRESH_TOKEN: refreshToken },
    }),
  );
  return result.AuthenticationResult!.AccessToken!;
}

/** The user's access-state item, as numbers; undefined if none. */
async function accessState(sub: string): Promise<Record<string, number> | undefined> {
  const { Item } = await dynamoDb.send(
    new sdk.GetItemCommand({
      TableName: stack.tableName,
      Key: { pk: { S: `USER#${sub}` }, sk: { S: 'ACCESS' } },
      ConsistentRead: true,
    }),
  );
  if (!Item) return undefined;
  return Object.fromEntries(
    Object.entries(Item)
      .filter(([, v]) => v.N !== undefined)
      .map(([k, v]) => [k, Number(v.N)]),
  );
}

async function groupsOf(username: string): Promise<string[]> {
  const { Groups } = await cognito.send(
    new AdminListGroupsForUserCommand({ UserPoolId: stack.cognito.userPoolId, Username: username }),
  );
  return (Groups ?? []).map((g) => g.GroupName!);
}

/** Everything the access command could change: every user with groups, every USER# item. */
async function snapshot(): Promise<unknown> {
  const { Users } = await cognito.send(
    new ListUsersCommand({ UserPoolId: stack.cognito.userPoolId }),
  );
  const users = await Promise.all(
    (Users ?? []).map(async (u) => ({
      username: u.Username,
      enabled: u.Enabled,
      status: u.UserStatus,
      groups: await groupsOf(u.Username!),
    })),
  );
  const { Items } = await dynamoDb.send(
    new sdk.ScanCommand({
      TableName: stack.tableName,
      FilterExpression: 'begins_with(pk, :p)',
      ExpressionAttributeValues: { ':p': { S: 'USER#' } },
      ConsistentRead: true,
    }),
  );
  return { users: users.sort((a, b) => a.username!.localeCompare(b.username!)), items: Items };
}

/** The API's status for a GET with this token. */
async function status(path: string, token: string): Promise<number> {
  const res = await fetch(`${stack.apiUrl}${path}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  await res.arrayBuffer();
  return res.status;
}

async function isEnabled(username: string): Promise<boolean | undefined> {
  const got = await cognito.send(
    new AdminGetUserCommand({ UserPoolId: stack.cognito.userPoolId, Username: username }),
  );
  return got.Enabled;
}

/** A data directory whose state.json sends the commands' Cognito calls to `endpoint`. */
function dataDirVia(endpoint: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'access-via-'));
  const state = JSON.parse(readFileSync(join(dataDir, 'state.json'), 'utf8'));
  state.cognito.endpoint = endpoint;
  writeFileSync(join(dir, 'state.json'), JSON.stringify(state));
  return dir;
}

const expectNotAuthorized = (promise: Promise<unknown>) =>
  expect(promise).rejects.toMatchObject({ name: 'NotAuthorizedException' });

describe('in Cognito and in the table', () => {
  test('the local access token carries sub, iat, username, token_use and cognito:groups', async () => {
    const user = await staffUser('claims-check@example.com', [CUSTOMER_READERS_GROUP]);
    const { access: token } = await signIn(user.email);
    expect(claims(token)).toMatchObject({
      sub: user.sub,
      username: user.username,
      token_use: 'access',
      'cognito:groups': [CUSTOMER_READERS_GROUP],
      iat: expect.any(Number),
    });
    expect(Number.isInteger(claims(token).iat)).toBe(true);
  });

  test('revoke: refresh tokens revoked, nbf after every token held, and a new sign-in works', async () => {
    const user = await staffUser('revoke-cli@example.com', [CUSTOMER_READERS_GROUP]);
    const before = await signIn(user.email);
    expect(await refresh(before.refresh)).toEqual(expect.any(String)); // it did work

    const result = await access('revoke', user.email);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    // Issue 30: the user by e-mail address (the local pool's usernames are UUIDs), the sub
    // beside it, and the table's line once, with the instant that stands.
    expect(user.username).not.toBe(user.email);
    expect(result.stdout).toContain(`revoke: user ${user.email} (sub ${user.sub})`);
    expect(result.stdout.match(/^Table: /gm)).toHaveLength(1);
    expect(result.stdout).toContain('AdminUserGlobalSignOut');
    expect(result.stdout).not.toContain(before.access);
    expect(result.stdout).not.toContain(before.refresh);

    const state = await accessState(user.sub);
    const nbf = state!.nbf!;
    expect(nbf).toBeGreaterThanOrEqual(before.iat + 1);
    expect(state!['nbf:customer-readers']).toBeUndefined();
    // The command returned only once the clock reached nbf.
    expect(Date.now()).toBeGreaterThanOrEqual(nbf * 1000);
    await expectNotAuthorized(refresh(before.refresh));

    const after = await signIn(user.email);
    expect(after.iat).toBeGreaterThanOrEqual(nbf);
    expect(await refresh(after.refresh)).toEqual(expect.any(String));
    expect(await groupsOf(user.username)).toEqual([CUSTOMER_READERS_GROUP]);
  });

  test('revoke by Cognito username works the same', async () => {
    const user = await staffUser('revoke-by-username@example.com');
    const before = await signIn(user.email);
    const result = await access('revoke', user.username);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`revoke: user ${user.email} (sub ${user.sub})`);
    expect((await accessState(user.sub))!.nbf).toBeGreaterThan(before.iat);
  });

  test('offboard: disabled, sign-in and refresh fail, nbf after every token held', async () => {
    const user = await staffUser('offboard-cli@example.com', [CUSTOMER_READERS_GROUP]);
    const before = await signIn(user.email);

    const result = await access('offboard', user.email);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('AdminDisableUser');
    expect(result.stdout).toContain('AdminUserGlobalSignOut');
    expect(result.stdout.match(/^Table: /gm)).toHaveLength(1);

    const got = await cognito.send(
      new AdminGetUserCommand({ UserPoolId: stack.cognito.userPoolId, Username: user.username }),
    );
    expect(got.Enabled).toBe(false);
    await expectNotAuthorized(signIn(user.email));
    await expectNotAuthorized(refresh(before.refresh));
    expect((await accessState(user.sub))!.nbf).toBeGreaterThanOrEqual(before.iat + 1);
  });

  test('remove-group: out of the group, nbf:customer-readers after every token held, refresh tokens kept', async () => {
    const user = await staffUser('remove-group-cli@example.com', [CUSTOMER_READERS_GROUP]);
    const before = await signIn(user.email);

    const result = await access('remove-group', user.email, CUSTOMER_READERS_GROUP);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('AdminRemoveUserFromGroup');
    expect(result.stdout.match(/^Table: /gm)).toHaveLength(1);

    expect(await groupsOf(user.username)).toEqual([]);
    const state = await accessState(user.sub);
    expect(state!['nbf:customer-readers']).toBeGreaterThanOrEqual(before.iat + 1);
    expect(state!.nbf).toBeUndefined();
    // Their transaction reads go on: the refresh token still works, and mints tokens without the group.
    const refreshed = await refresh(before.refresh);
    expect(claims(refreshed)['cognito:groups']).toBeUndefined();
  });

  test('an unknown user: a non-zero exit, a message, and nothing changed in Cognito or the table', async () => {
    await staffUser('bystander@example.com', [CUSTOMER_READERS_GROUP]);
    const before = await snapshot();
    for (const args of [
      ['revoke', 'nobody@example.com'],
      ['offboard', 'nobody@example.com'],
      ['remove-group', 'nobody@example.com', CUSTOMER_READERS_GROUP],
      ['enable', 'nobody@example.com'],
      ['add-group', 'nobody@example.com', CUSTOMER_READERS_GROUP],
      ['revoke', '00000000-0000-4000-8000-000000000000'],
    ]) {
      const result = await access(...args);
      expect([args, result.code]).toEqual([args, 1]);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^access: No such user in user pool .*nothing was changed\n$/);
    }
    for (const verb of ['remove-group', 'add-group']) {
      const unknownGroup = await access(verb, 'bystander@example.com', 'no-such-group');
      expect(unknownGroup.code).toBe(1);
      expect(unknownGroup.stderr).toContain('No group no-such-group');
    }
    expect(await snapshot()).toEqual(before);
  });

  test.each([
    [[]],
    [['revoke']],
    [['suspend', 'x@example.com']],
    [['revoke', 'x@example.com', 'extra']],
    [['remove-group', 'x@example.com']],
    [['add-group', 'x@example.com']],
    [['enable', 'x@example.com', 'extra']],
  ])('usage errors exit 2: %j', async (args) => {
    const result = await access(...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('usage: npm run access --');
  });

  test('a bad verb: named in one line, then the usage, no stack trace', async () => {
    const result = await access('suspend', 'x@example.com');
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    const [first, ...usage] = result.stderr.trimEnd().split('\n');
    expect(first).toBe('access: unknown verb "suspend"');
    expect(usage[0]).toMatch(/^usage: npm run access -- .*enable <user>/);
    expect(usage.join('\n')).toContain('add-group <user> <group>');
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });

  test('enable: an offboarded user may sign in again; nbf moves past the enable, so no token from before it comes back', async () => {
    const user = await staffUser('enable-cli@example.com');
    expect((await access('offboard', user.email)).code).toBe(0);
    const voided = await accessState(user.sub);

    const result = await access('enable', user.email);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain(`enable: user ${user.email} (sub ${user.sub})`);
    expect(result.stdout).toContain('AdminEnableUser');
    expect(await isEnabled(user.username)).toBe(true);
    const after = await accessState(user.sub);
    expect(after!.nbf!).toBeGreaterThan(voided!.nbf!);
    expect((await signIn(user.email)).iat).toBeGreaterThanOrEqual(after!.nbf!);
    // Again: nothing left to do, and it says so.
    expect((await access('enable', user.email)).stdout).toContain('already enabled');
  });

  test('add-group: back in the group; nbf:customer-readers is left as it was', async () => {
    const user = await staffUser('add-group-cli@example.com', [CUSTOMER_READERS_GROUP]);
    expect((await access('remove-group', user.email, CUSTOMER_READERS_GROUP)).code).toBe(0);
    const voided = await accessState(user.sub);

    const result = await access('add-group', user.email, CUSTOMER_READERS_GROUP);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('AdminAddUserToGroup');
    expect(await groupsOf(user.username)).toEqual([CUSTOMER_READERS_GROUP]);
    expect(await accessState(user.sub)).toEqual(voided);
    expect((await access('add-group', user.email, CUSTOMER_READERS_GROUP)).stdout).toContain(
      `already in ${CUSTOMER_READERS_GROUP}`,
    );
  });

  test('npm run token for an offboarded demo user: says they are disabled and how to enable them', async () => {
    const teller = 'teller@example.com';
    expect((await command('token', [teller])).code).toBe(0);
    expect((await access('offboard', teller)).code).toBe(0);

    const refused = await command('token', [teller]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(`"${teller}" is disabled`);
    expect(refused.stderr).toContain(`npm run access -- enable ${teller}`);
    expect(refused.stderr).not.toContain('unknown user');

    expect((await access('enable', teller)).code).toBe(0);
    const token = await command('token', [teller]);
    expect(token.code).toBe(0);
    expect(claims(token.stdout.trim()).iat).toEqual(expect.any(Number));
  });
});

/**
 * Issue 23: the table first, then Cognito, each step safe to repeat; against a Cognito that
 * refuses calls for a disabled user (the local one does, as AWS does) or a call of our choice.
 */
describe('when a step fails half-way', () => {
  test('offboard of a user already disabled: the refused sign-out is reported, and it ends OK', async () => {
    const user = await staffUser('offboard-twice@example.com');
    const before = await signIn(user.email);
    expect((await access('offboard', user.email)).code).toBe(0);

    const again = await access('offboard', user.email);
    expect(again).toMatchObject({ code: 0, stderr: '' });
    expect(again.stdout).toContain('global sign-out refused, the user is already disabled');
    expect(again.stdout).toContain('user was already disabled');
    expect((await accessState(user.sub))!.nbf).toBeGreaterThanOrEqual(before.iat + 1);
  });

  test('revoke of a disabled user: the refused sign-out is reported, and it ends OK (a re-run does not fail for ever)', async () => {
    const user = await staffUser('revoke-disabled@example.com');
    const before = await signIn(user.email);
    expect((await access('offboard', user.email)).code).toBe(0);

    const revoked = await access('revoke', user.email);
    expect(revoked).toMatchObject({ code: 0, stderr: '' });
    expect(revoked.stdout).toContain('global sign-out refused, the user is already disabled');
    expect((await accessState(user.sub))!.nbf).toBeGreaterThanOrEqual(before.iat + 1);
  });

  test.each([
    ['offboard', 'AdminDisableUser', [] as string[]],
    ['offboard', 'AdminUserGlobalSignOut', []],
    ['remove-group', 'AdminRemoveUserFromGroup', [CUSTOMER_READERS_GROUP]],
  ])(
    '%s with %s refused: old tokens already refused, what was and was not done printed, exit 1; a re-run completes it',
    async (verb, operation, extra) => {
      const proxy = await startCognitoFaultProxy(stack.cognito.endpoint);
      const via = dataDirVia(proxy.endpoint);
      try {
        const user = await staffUser(`half-${operation.toLowerCase()}@example.com`, [
          CUSTOMER_READERS_GROUP,
        ]);
        const { access: token } = await signIn(user.email);
        expect(await status('/customers/1', token)).toBe(200);

        proxy.refuse([operation]);
        const failed = await command('access', [verb, user.email, ...extra], { dataDir: via });
        expect(failed.code).toBe(1);
        expect(failed.stdout).toMatch(/^Table: Tokens .*issued before .* are refused/m);
        expect(failed.stderr).toContain(`(${operation}) failed: TooManyRequestsException`);
        expect(failed.stderr).toMatch(/^access: not done: Table: nbf.* moved past/m);
        expect(failed.stderr).toContain('Run the same command again');
        expect(failed.stderr).not.toMatch(/^\s+at /m);
        // The security-critical step is done: the token held before answers no more.
        expect(await status('/customers/1', token)).toBe(verb === 'offboard' ? 401 : 403);

        proxy.refuse([]);
        const rerun = await command('access', [verb, user.email, ...extra], { dataDir: via });
        expect(rerun).toMatchObject({ code: 0, stderr: '' });
        expect(rerun.stdout).toContain(operation);
        if (verb === 'offboard') {
          expect(await isEnabled(user.username)).toBe(false);
          await expectNotAuthorized(signIn(user.email));
        } else {
          expect(await groupsOf(user.username)).toEqual([]);
        }
      } finally {
        await proxy.stop();
        rmSync(via, { recursive: true, force: true });
      }
    },
    30_000,
  );
});

/** Issue 23: nbf from Cognito's clock (its answers' Date), not from the operator's machine. */
describe("the not-before time is Cognito's", () => {
  test.each([
    ['behind', -30_000],
    ['ahead', 30_000],
  ])(
    "the machine's clock 30 s %s: tokens held are void, a sign-in right after works, no wait",
    async (name, skew) => {
      const user = await staffUser(`clock-${name}@example.com`);
      const before = await signIn(user.email);
      const started = performance.now();
      const result = await command('access', ['revoke', user.email], { clockSkewMs: skew });
      const elapsed = performance.now() - started;
      expect(result).toMatchObject({ code: 0, stderr: '' });

      const nbf = (await accessState(user.sub))!.nbf!;
      expect(nbf).toBeGreaterThanOrEqual(before.iat + 1);
      // Cognito's second (this machine's: cognito-local runs here), not the skewed one.
      expect(nbf).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
      expect((await signIn(user.email)).iat).toBeGreaterThanOrEqual(nbf);
      // It waited for at most a second of Cognito's clock, not for the skew.
      expect(elapsed).toBeLessThan(15_000);
    },
    60_000,
  );
});

/**
 * What the API answers once the command has run (SPEC 8: from the next request). These need the
 * functions to read the access state on each GET.
 */
describe('over HTTP', () => {
  test('revoke: the token that read gets 401 on both routes; a new sign-in reads again', async () => {
    const user = await staffUser('revoke-http@example.com', [CUSTOMER_READERS_GROUP]);
    const { access: token } = await signIn(user.email);
    expect(await status('/transactions/1', token)).toBe(200);
    expect(await status('/customers/1', token)).toBe(200);

    expect((await access('revoke', user.email)).code).toBe(0);
    expect(await status('/transactions/1', token)).toBe(401);
    expect(await status('/customers/1', token)).toBe(401);

    const { access: fresh } = await signIn(user.email);
    expect(await status('/transactions/1', fresh)).toBe(200);
    expect(await status('/customers/1', fresh)).toBe(200);
  });

  test('offboard: sign-in fails and the old tokens get 401 on both routes', async () => {
    const user = await staffUser('offboard-http@example.com', [CUSTOMER_READERS_GROUP]);
    const { access: token } = await signIn(user.email);
    expect(await status('/transactions/1', token)).toBe(200);

    expect((await access('offboard', user.email)).code).toBe(0);
    await expectNotAuthorized(signIn(user.email));
    expect(await status('/transactions/1', token)).toBe(401);
    expect(await status('/customers/1', token)).toBe(401);
  });

  test('remove-group: the old token gets 403 on customers; its transaction reads go on', async () => {
    const user = await staffUser('remove-group-http@example.com', [CUSTOMER_READERS_GROUP]);
    const { access: token } = await signIn(user.email);
    expect(await status('/customers/1', token)).toBe(200);

    expect((await access('remove-group', user.email, CUSTOMER_READERS_GROUP)).code).toBe(0);
    expect(await status('/customers/1', token)).toBe(403);
    expect(await status('/transactions/1', token)).toBe(200);
  });

  test('a read budget met over HTTP: the next read is a 429 with Retry-After; the other route reads on', async () => {
    // The local stack runs with the default budgets (SPEC 8): 60 customer reads per 5 minutes.
    const user = await staffUser('budget-http@example.com', [CUSTOMER_READERS_GROUP]);
    const { access: token } = await signIn(user.email);
    for (let i = 0; i < 60; i += 1) expect(await status('/customers/1', token)).toBe(200);
    const res = await fetch(`${stack.apiUrl}/customers/1`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(429);
    expect(await res.json()).toEqual({ message: 'Too many requests', data: null });
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(retryAfter >= 1 && retryAfter <= 300).toBe(true);
    expect(await status('/transactions/1', token)).toBe(200);
  });

  test('npm run audit: who read a customer, a transaction; what a user read (by e-mail or username)', async () => {
    const user = await staffUser('audited-http@example.com', [CUSTOMER_READERS_GROUP]);
    const { access: token } = await signIn(user.email);
    expect(await status('/customers/1', token)).toBe(200);
    expect(await status('/transactions/2', token)).toBe(200);
    expect(await status('/customers/007', token)).toBe(400);

    const lines = async (...args: string[]) => {
      const result = await command('audit', args);
      expect(result.code).toBe(0);
      return result.stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    };
    const mine = (events: Record<string, unknown>[]) => events.filter((e) => e.sub === user.sub);
    expect(mine(await lines('customer', '1')).map((e) => [e.route, e.status])).toEqual([
      ['GET /customers/{customer_id}', 200],
    ]);
    expect(mine(await lines('transaction', '2')).map((e) => e.recordId)).toEqual(['2']);
    for (const name of [user.email, user.username]) {
      const events = await lines('user', name);
      expect(events.map((e) => [e.entity, e.recordId, e.status])).toEqual([
        ['customer', '1', 200],
        ['transaction', '2', 200],
        ['customer', null, 400],
      ]);
      expect(events.every((e) => e.sub === user.sub && e.username === user.username)).toBe(true);
    }
    expect((await command('audit', ['customer', '007'])).code).not.toBe(0);
  });
});
