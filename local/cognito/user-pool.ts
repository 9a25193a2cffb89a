/**
 * A local Cognito user pool: cognito-local, run in-process (./server.ts). The first start creates
 * the demo pool, its app client and its group. Every start restores the pool's settings (MFA
 * required, TOTP only, the stage's password policy) and the demo users. Each demo user keeps the
 * TOTP secret this data directory holds for them (demo-totp.json), so that their codes can be
 * computed (`npm run token`, currentCode).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  AdminAddUserToGroupCommand,
  AdminCreateUserCommand,
  AdminEnableUserCommand,
  AdminGetUserCommand,
  AdminListGroupsForUserCommand,
  AdminRemoveUserFromGroupCommand,
  AdminSetUserPasswordCommand,
  CognitoIdentityProviderClient,
  CreateGroupCommand,
  CreateUserPoolClientCommand,
  CreateUserPoolCommand,
  DescribeUserPoolClientCommand,
  DescribeUserPoolCommand,
  ListGroupsCommand,
  SetUserPoolMfaConfigCommand,
  UpdateUserPoolCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { CUSTOMER_READERS_GROUP } from '../../core/groups.ts';
import { PASSWORD_POLICY } from '../../core/password-policy.ts';
import { signInWithTotp, type SignedIn } from '../../sign-in/flow.ts';
import { newTotpSecret, totpCode } from '../../sign-in/totp.ts';
import { setVerifiedTotp } from './mfa.ts';
import { closeServer, startCognitoLocalServer, type LocalStore } from './server.ts';

/** Password of every local demo user (local rig only; never deployed). */
export const DEMO_PASSWORD = 'Local-Demo-Passw0rd!';
export const DEMO_USERS: readonly { username: string; groups: readonly string[] }[] = [
  { username: 'teller@example.com', groups: [] },
  { username: 'compliance@example.com', groups: [CUSTOMER_READERS_GROUP] },
];

const POOL_NAME = 'currency-exchange-local';
const CLIENT_NAME = 'currency-exchange-local-client';
const IDS_FILE = 'demo-pool.json';
/** The demo users' TOTP secrets, by username: kept with the pool, the same at every start. */
export const DEMO_TOTP_FILE = 'demo-totp.json';

/** The stage's password rules in the form CreateUserPool and UpdateUserPool take. */
const POOL_POLICIES = {
  PasswordPolicy: {
    MinimumLength: PASSWORD_POLICY.minLength,
    RequireLowercase: PASSWORD_POLICY.requireLowercase,
    RequireUppercase: PASSWORD_POLICY.requireUppercase,
    RequireNumbers: PASSWORD_POLICY.requireDigits,
    RequireSymbols: PASSWORD_POLICY.requireSymbols,
  },
};

export type TokenKind = 'access' | 'id';

export interface LocalCognitoOptions {
  /** Port on 127.0.0.1; 0 = any free port. */
  port: number;
  /** cognito-local's data directory (user pools, clients). */
  dataDir: string;
}

export interface LocalCognito {
  /** e.g. http://127.0.0.1:9229 */
  readonly endpoint: string;
  readonly userPoolId: string;
  readonly clientId: string;
  /** The `iss` of the pool's tokens: `<endpoint>/<userPoolId>`. */
  readonly issuer: string;
  /** Where the pool's signing keys are published. */
  readonly jwksUri: string;
  /** The demo users' TOTP secrets (base32), by username: this data directory's. */
  readonly demoTotpSecrets: Readonly<Record<string, string>>;
  /** A demo user's TOTP code now (or at `atMs`), as their authenticator app would show it. */
  currentCode(username: string, atMs?: number): string;
  /** Signs a demo user in (password, then their TOTP code) and returns the access or ID token. */
  tokenFor(username: string, kind?: TokenKind): Promise<string>;
  stop(): Promise<void>;
}

/** A Cognito client for the emulator (admin calls need some signature; any credentials do). */
export function cognitoClient(endpoint: string): CognitoIdentityProviderClient {
  return new CognitoIdentityProviderClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    // The SDK's retries, as against AWS: a kept-alive connection the emulator's server closes
    // while idle is reset under the next request (ECONNRESET), and is worth one more try.
    maxAttempts: 3,
  });
}

export interface LocalSignIn {
  client: CognitoIdentityProviderClient;
  clientId: string;
  username: string;
  password: string;
  /** The user's TOTP secret, to answer SOFTWARE_TOKEN_MFA (a demo user's: demoTotpSecrets). */
  totpSecret?: string;
  /** A user without a TOTP (MFA_SETUP): enrol one; its secret is in the result. */
  enrol?: boolean;
}

/** USER_PASSWORD_AUTH and the TOTP challenge against a (local) user pool app client: all tokens. */
export function signInTokens(options: LocalSignIn): Promise<SignedIn> {
  const { totpSecret } = options;
  return signInWithTotp({
    client: options.client,
    clientId: options.clientId,
    username: options.username,
    password: options.password,
    ...(totpSecret ? { code: () => totpCode(totpSecret) } : {}),
    ...(options.enrol ? { enrol: true } : {}),
  });
}

/** As signInTokens, the access or ID token only. */
export async function signIn(options: LocalSignIn & { kind?: TokenKind }): Promise<string> {
  const tokens = await signInTokens(options);
  return options.kind === 'id' ? tokens.idToken : tokens.accessToken;
}

interface PoolIds {
  userPoolId: string;
  clientId: string;
}

function isNotFound(error: unknown): boolean {
  return (
    error instanceof Error &&
    (error.name === 'ResourceNotFoundException' || error.name === 'UserNotFoundException')
  );
}

async function existingIds(
  client: CognitoIdentityProviderClient,
  file: string,
): Promise<PoolIds | undefined> {
  let ids: PoolIds;
  try {
    ids = JSON.parse(readFileSync(file, 'utf8')) as PoolIds;
  } catch {
    return undefined;
  }
  try {
    await client.send(new DescribeUserPoolCommand({ UserPoolId: ids.userPoolId }));
    await client.send(
      new DescribeUserPoolClientCommand({ UserPoolId: ids.userPoolId, ClientId: ids.clientId }),
    );
    return ids;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** Creates the demo pool and app client once, then the pool's settings, the group and the demo users. */
async function provision(
  client: CognitoIdentityProviderClient,
  store: LocalStore,
  dataDir: string,
): Promise<PoolIds & { demoTotpSecrets: Record<string, string> }> {
  const file = join(dataDir, IDS_FILE);
  let ids = await existingIds(client, file);
  if (!ids) {
    const pool = await client.send(
      new CreateUserPoolCommand({
        PoolName: POOL_NAME,
        UsernameAttributes: ['email'],
        AutoVerifiedAttributes: ['email'],
        MfaConfiguration: 'ON',
        Policies: POOL_POLICIES,
      }),
    );
    const userPoolId = pool.UserPool?.Id;
    if (!userPoolId) throw new Error('cognito-local did not return a user pool id');
    const appClient = await client.send(
      new CreateUserPoolClientCommand({
        UserPoolId: userPoolId,
        ClientName: CLIENT_NAME,
        GenerateSecret: false,
        ExplicitAuthFlows: ['ALLOW_USER_PASSWORD_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'],
        AccessTokenValidity: 60,
        IdTokenValidity: 60,
        TokenValidityUnits: { AccessToken: 'minutes', IdToken: 'minutes' },
      }),
    );
    const clientId = appClient.UserPoolClient?.ClientId;
    if (!clientId) throw new Error('cognito-local did not return an app client id');
    ids = { userPoolId, clientId };
    writeFileSync(file, `${JSON.stringify(ids, null, 2)}\n`);
  }
  const { userPoolId } = ids;
  await applyPoolSettings(client, userPoolId);
  // (ListGroups, not GetGroup: cognito-local answers GetGroup of a missing group with a 500.)
  const groups = await client.send(new ListGroupsCommand({ UserPoolId: userPoolId }));
  if (!groups.Groups?.some((g) => g.GroupName === CUSTOMER_READERS_GROUP)) {
    await client.send(
      new CreateGroupCommand({
        UserPoolId: userPoolId,
        GroupName: CUSTOMER_READERS_GROUP,
        Description: 'May read customer records',
      }),
    );
  }
  for (const user of DEMO_USERS) await restoreDemoUser(client, userPoolId, user);
  const demoTotpSecrets = await restoreDemoTotp(store, userPoolId, join(dataDir, DEMO_TOTP_FILE));
  return { ...ids, demoTotpSecrets };
}

/**
 * The stage's sign-in rules, at every start, so that a kept pool follows the code's rules: MFA
 * required, TOTP only (no SMS), the stage's password policy. UpdateUserPool resets what it is not
 * given, so it is given all that the pool was created with and it keeps.
 */
async function applyPoolSettings(
  client: CognitoIdentityProviderClient,
  userPoolId: string,
): Promise<void> {
  await client.send(
    new UpdateUserPoolCommand({
      UserPoolId: userPoolId,
      AutoVerifiedAttributes: ['email'],
      MfaConfiguration: 'ON',
      Policies: POOL_POLICIES,
    }),
  );
  await client.send(
    new SetUserPoolMfaConfigCommand({
      UserPoolId: userPoolId,
      MfaConfiguration: 'ON',
      SoftwareTokenMfaConfiguration: { Enabled: true },
    }),
  );
}

/**
 * Each demo user enrolled in TOTP with the secret this data directory keeps for them (a new one
 * the first time), at every start: whatever happened to their TOTP since, their codes are the
 * ones `npm run --silent token -- --code <user>` prints.
 */
async function restoreDemoTotp(
  store: LocalStore,
  userPoolId: string,
  file: string,
): Promise<Record<string, string>> {
  let kept: Record<string, string> = {};
  try {
    kept = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  } catch {
    // none kept yet
  }
  const secrets: Record<string, string> = {};
  for (const { username } of DEMO_USERS) {
    const secret = typeof kept[username] === 'string' ? kept[username] : newTotpSecret();
    await setVerifiedTotp(store.cognito, store.ctx, { userPoolId, username }, secret);
    secrets[username] = secret;
  }
  if (DEMO_USERS.some(({ username }) => kept[username] !== secrets[username]))
    writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  return secrets;
}

/**
 * A demo user as DEMO_USERS describes them, at every start: created if missing, enabled, in
 * exactly their groups. `npm run access` may have offboarded them or changed their groups; a
 * restart undoes that, so that the commands the README and the start banner show always work.
 * The table's not-before instants stay: tokens voided stay void, new sign-ins work. Users made
 * by hand are left as they are.
 */
async function restoreDemoUser(
  client: CognitoIdentityProviderClient,
  userPoolId: string,
  user: (typeof DEMO_USERS)[number],
): Promise<void> {
  const get = () =>
    client.send(new AdminGetUserCommand({ UserPoolId: userPoolId, Username: user.username }));
  let got;
  try {
    got = await get();
  } catch (error) {
    if (!isNotFound(error)) throw error;
    await createUser(client, userPoolId, user.username);
    got = await get();
  }
  // The pool's own username (a uuid; the e-mail is an alias): cognito-local's
  // AdminListGroupsForUser finds no groups by the alias.
  const Username = got.Username ?? user.username;
  if (got.Enabled === false)
    await client.send(new AdminEnableUserCommand({ UserPoolId: userPoolId, Username }));
  const memberOf = await client.send(
    new AdminListGroupsForUserCommand({ UserPoolId: userPoolId, Username }),
  );
  const current = (memberOf.Groups ?? []).flatMap((g) => (g.GroupName ? [g.GroupName] : []));
  for (const GroupName of user.groups.filter((g) => !current.includes(g))) {
    await client.send(
      new AdminAddUserToGroupCommand({ UserPoolId: userPoolId, Username, GroupName }),
    );
  }
  for (const GroupName of current.filter((g) => !user.groups.includes(g))) {
    await client.send(
      new AdminRemoveUserFromGroupCommand({ UserPoolId: userPoolId, Username, GroupName }),
    );
  }
}

/**
 * A user of the local pool with the demo password made permanent (no first-sign-in password
 * change), the e-mail address as username, verified. No TOTP yet: their first sign-in meets
 * MFA_SETUP, as a stage's user does (signInTokens with `enrol` answers it).
 */
export async function createUser(
  client: CognitoIdentityProviderClient,
  userPoolId: string,
  email: string,
): Promise<void> {
  await client.send(
    new AdminCreateUserCommand({
      UserPoolId: userPoolId,
      Username: email,
      UserAttributes: [
        { Name: 'email', Value: email },
        { Name: 'email_verified', Value: 'true' },
      ],
      MessageAction: 'SUPPRESS',
      TemporaryPassword: DEMO_PASSWORD,
    }),
  );
  await client.send(
    new AdminSetUserPasswordCommand({
      UserPoolId: userPoolId,
      Username: email,
      Password: DEMO_PASSWORD,
      Permanent: true,
    }),
  );
}

export async function startCognito(options: LocalCognitoOptions): Promise<LocalCognito> {
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const { server, endpoint, store } = await startCognitoLocalServer(options.port, dataDir);
  const client = cognitoClient(endpoint);
  try {
    const { userPoolId, clientId, demoTotpSecrets } = await provision(client, store, dataDir);
    const issuer = `${endpoint}/${userPoolId}`;
    const secretOf = (username: string) => {
      const secret = demoTotpSecrets[username];
      if (!secret) throw new Error(`${username} is not a local demo user`);
      return secret;
    };
    return {
      endpoint,
      userPoolId,
      clientId,
      issuer,
      jwksUri: `${issuer}/.well-known/jwks.json`,
      demoTotpSecrets,
      currentCode: (username, atMs) => totpCode(secretOf(username), atMs),
      tokenFor: (username, kind = 'access') =>
        signIn({
          client,
          clientId,
          username,
          password: DEMO_PASSWORD,
          totpSecret: secretOf(username),
          kind,
        }),
      stop: async () => {
        client.destroy();
        await closeServer(server);
      },
    };
  } catch (error) {
    client.destroy();
    await closeServer(server);
    throw error;
  }
}
