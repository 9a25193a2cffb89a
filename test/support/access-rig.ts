/**
 * The local rig for test/local/access.test.ts (`npm run access`, SPEC 8): started once
 * (useAccessRig), and these live bindings are set by its beforeAll; the commands run as a user
 * runs them, and the helpers read what they changed in Cognito and in the table.
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
import { PROJECT_ROOT } from '../../core/project-root.ts';
import {
  cognitoClient,
  createUser,
  DEMO_PASSWORD,
  signInTokens,
} from '../../local/cognito/user-pool.ts';
import { startLocalRig, type LocalRig } from '../../local/rig/rig.ts';
import { testRigOptions } from './shared-dynamodb.ts';

const run = promisify(execFile);

let dataDir: string;
export let rig: LocalRig;
export let cognito: CognitoIdentityProviderClient;
let dynamoDb: DynamoDBClient;
// Loaded once the rig has started: jest's ES module linker fails when this test and the rig's
// own dynamic import load the SDK at the same time.
let sdk: typeof import('@aws-sdk/client-dynamodb');

/** Starts the local rig before the file's tests, stops it after them. */

export function useAccessRig(): void {
  // Each test runs `npm run access` (a Node.js process) once or several times: seconds each on a quiet
  // machine, tens of seconds with two busy loops beside the run.
  jest.setTimeout(120_000);

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'access-test-'));
    rig = await startLocalRig(testRigOptions(dataDir));
    cognito = cognitoClient(rig.cognito.endpoint);
    sdk = await import('@aws-sdk/client-dynamodb');
    dynamoDb = new sdk.DynamoDBClient({
      region: 'us-east-1',
      endpoint: rig.dynamoDbEndpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
  }, 90_000);

  afterAll(async () => {
    cognito?.destroy();
    dynamoDb?.destroy();
    await rig?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
}

interface CommandOptions {
  /** A data directory whose state.json points elsewhere (e.g. at a fault proxy). */
  dataDir?: string;
  /** The machine's clock this far off, in ms (test/support/skewed-clock.ts). */
  clockSkewMs?: number;
  /** Variables set for the command (a deployed stage's, say), after the local ones are cleared. */
  env?: Record<string, string>;
}

/** `node bin/<name>.ts <args>` against this test's rig, as `npm run <name>` runs it. */
export async function command(
  name: 'access' | 'audit' | 'token',
  args: readonly string[],
  options: CommandOptions = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, LOCAL_DATA_DIR: options.dataDir ?? dataDir };
  for (const name of ['NODE_OPTIONS', 'USER_POOL_ID', 'TABLE_NAME']) delete env[name];
  Object.assign(env, options.env);
  const preload: string[] = [];
  if (options.clockSkewMs !== undefined) {
    env.CLOCK_SKEW_MS = String(options.clockSkewMs);
    preload.push('--import', join(PROJECT_ROOT, 'test/support/skewed-clock.ts'));
  }
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      [...preload, `bin/${name}.ts`, ...args],
      { cwd: PROJECT_ROOT, env },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

export const access = (...args: string[]) => command('access', args);

/** A staff user of the local pool made for one test, so that tests do not share a user. */
export async function staffUser(
  email: string,
  groups: readonly string[] = [],
): Promise<{ email: string; username: string; sub: string }> {
  const userPoolId = rig.cognito.userPoolId;
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

export async function signIn(email: string): Promise<Tokens> {
  const tokens = await signInTokens({
    client: cognito,
    clientId: rig.cognito.clientId,
    username: email,
    password: DEMO_PASSWORD,
    totpSecret: totpSecrets.get(email),
    enrol: true,
  });
  if (tokens.enrolledSecret) totpSecrets.set(email, tokens.enrolledSecret);
  const access = tokens.accessToken;
  return { access, refresh: tokens.refreshToken, iat: claims(access).iat };
}

export function claims(token: string): { iat: number; sub: string; [claim: string]: unknown } {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
}

export async function refresh(refreshToken: string): Promise<string> {
  const result = await cognito.send(
    new InitiateAuthCommand({
      AuthFlow: 'REFRESH_TOKEN_AUTH',
      ClientId: rig.cognito.clientId,
      AuthParameters: { REFRESH_TOKEN: refreshToken },
    }),
  );
  return result.AuthenticationResult!.AccessToken!;
}

/** The user's access-state item, as numbers; undefined if none. */
export async function accessState(sub: string): Promise<Record<string, number> | undefined> {
  const { Item } = await dynamoDb.send(
    new sdk.GetItemCommand({
      TableName: rig.tableName,
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

export async function groupsOf(username: string): Promise<string[]> {
  const { Groups } = await cognito.send(
    new AdminListGroupsForUserCommand({ UserPoolId: rig.cognito.userPoolId, Username: username }),
  );
  return (Groups ?? []).map((g) => g.GroupName!);
}

/** Everything the access command could change: every user with groups, every USER# item. */
export async function snapshot(): Promise<unknown> {
  const { Users } = await cognito.send(
    new ListUsersCommand({ UserPoolId: rig.cognito.userPoolId }),
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
      TableName: rig.tableName,
      FilterExpression: 'begins_with(pk, :p)',
      ExpressionAttributeValues: { ':p': { S: 'USER#' } },
      ConsistentRead: true,
    }),
  );
  return { users: users.sort((a, b) => a.username!.localeCompare(b.username!)), items: Items };
}

/** The API's status for a GET with this token. */
export async function status(path: string, token: string): Promise<number> {
  const res = await fetch(`${rig.apiUrl}${path}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  await res.arrayBuffer();
  return res.status;
}

export async function isEnabled(username: string): Promise<boolean | undefined> {
  const got = await cognito.send(
    new AdminGetUserCommand({ UserPoolId: rig.cognito.userPoolId, Username: username }),
  );
  return got.Enabled;
}

/** A data directory whose state.json sends the commands' Cognito calls to `endpoint`. */
export function dataDirVia(endpoint: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'access-via-'));
  const state = JSON.parse(readFileSync(join(dataDir, 'state.json'), 'utf8'));
  state.cognito.endpoint = endpoint;
  writeFileSync(join(dir, 'state.json'), JSON.stringify(state));
  return dir;
}

export const expectNotAuthorized = (promise: Promise<unknown>) =>
  expect(promise).rejects.toMatchObject({ name: 'NotAuthorizedException' });
