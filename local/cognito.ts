/**
 * A local Cognito user pool: cognito-local run in-process (its own server and services, wired up
 * here so that its data lives under our data directory and it binds 127.0.0.1), provisioned with
 * the demo pool, app client and group on first start, and the demo users restored at every start.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
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
  InitiateAuthCommand,
  ListGroupsCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { CUSTOMER_READERS_GROUP } from '../core/groups';
import { withAccessControl, type LocalRouter } from './cognito-access';
import { withBoundedRefreshTokens } from './cognito-refresh-tokens';
import { LOCALHOST } from './net';

/** Password of every local demo user (local stack only; never deployed). */
export const DEMO_PASSWORD = 'Local-Demo-Passw0rd!';
export const DEMO_USERS: readonly { username: string; groups: readonly string[] }[] = [
  { username: 'teller@example.com', groups: [] },
  { username: 'compliance@example.com', groups: [CUSTOMER_READERS_GROUP] },
];

const POOL_NAME = 'currency-exchange-local';
const CLIENT_NAME = 'currency-exchange-local-client';
const IDS_FILE = 'demo-pool.json';

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
  /** Signs a demo user in (USER_PASSWORD_AUTH) and returns the access or ID token. */
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

/** InitiateAuth USER_PASSWORD_AUTH against a (local) user pool app client. */
export async function signIn(options: {
  client: CognitoIdentityProviderClient;
  clientId: string;
  username: string;
  password: string;
  kind?: TokenKind;
}): Promise<string> {
  const result = await options.client.send(
    new InitiateAuthCommand({
      AuthFlow: 'USER_PASSWORD_AUTH',
      ClientId: options.clientId,
      AuthParameters: { USERNAME: options.username, PASSWORD: options.password },
    }),
  );
  const tokens = result.AuthenticationResult;
  const token = options.kind === 'id' ? tokens?.IdToken : tokens?.AccessToken;
  if (!token)
    throw new Error(`Sign-in did not return tokens (challenge: ${result.ChallengeName ?? 'none'})`);
  return token;
}

// --- cognito-local, in-process ----------------------------------------------------------------

interface Logger {
  level: string;
}
interface CognitoLocalModules {
  pino: (options: object, stream?: unknown) => Logger & { destination?: unknown };
  pinoDestination: (fd: number) => unknown;
  DateClock: new () => unknown;
  TriggersService: new (
    clock: unknown,
    cognito: unknown,
    lambda: unknown,
    crypto: unknown,
  ) => unknown;
  LambdaService: new (config: object, client: unknown) => unknown;
  MessagesService: new (triggers: unknown, delivery: unknown) => unknown;
  MessageDeliveryService: new (sender: unknown) => unknown;
  ConsoleMessageSender: new () => unknown;
  CognitoServiceFactoryImpl: new (
    dir: string,
    stores: unknown,
    pools: unknown,
  ) => {
    create(ctx: object, defaults: object): Promise<unknown>;
  };
  UserPoolServiceFactoryImpl: new (clock: unknown, stores: unknown) => unknown;
  StormDBDataStoreFactory: new (dir: string) => unknown;
  JwtTokenGenerator: new (
    clock: unknown,
    triggers: unknown,
    config: { IssuerDomain: string },
  ) => unknown;
  otp: unknown;
  Router: (services: object) => unknown;
  createServer: (
    router: unknown,
    logger: Logger,
    options: object,
    services: object,
  ) => { application: Parameters<typeof import('node:http').createServer>[0] };
}

function loadCognitoLocal(): CognitoLocalModules {
  const require = createRequire(import.meta.url);
  const fromCognitoLocal = createRequire(require.resolve('cognito-local'));
  const lib = (path: string) => require(`cognito-local/lib/${path}`);
  const pino = fromCognitoLocal('pino');
  return {
    pino,
    pinoDestination: pino.destination,
    ...lib('services/index.js'),
    ...lib('services/cognitoService.js'),
    ...lib('services/userPoolService.js'),
    ...lib('services/dataStore/stormDb.js'),
    ...lib('services/messageDelivery/messageDelivery.js'),
    ...lib('services/messageDelivery/consoleMessageSender.js'),
    ...lib('services/tokenGenerator.js'),
    ...lib('services/otp.js'),
    ...lib('server/Router.js'),
    ...lib('server/server.js'),
  };
}

/**
 * Mirrors cognito-local's own createDefaultServer, except that the data directory is ours, the
 * issuer is http://127.0.0.1:<port>, there are no Lambda triggers (so neither the AWS SDK v2 nor
 * KMS is loaded), logs go to stderr at error level only, and the refresh tokens kept per user
 * are bounded (local/cognito-refresh-tokens.ts).
 */
async function startCognitoLocalServer(
  port: number,
  dataDir: string,
): Promise<{ server: Server; endpoint: string }> {
  const m = loadCognitoLocal();
  const logger = m.pino(
    { level: process.env.COGNITO_LOCAL_LOG_LEVEL ?? 'error' },
    m.pinoDestination(2),
  );
  const ctx = { logger };
  const clock = new m.DateClock();
  const dbDir = join(dataDir, 'db');
  mkdirSync(dbDir, { recursive: true });
  const stores = new m.StormDBDataStoreFactory(dbDir);
  const cognito = await new m.CognitoServiceFactoryImpl(
    dbDir,
    stores,
    // + at most MAX_REFRESH_TOKENS_PER_USER refresh tokens stored per user (issue 30).
    withBoundedRefreshTokens(new m.UserPoolServiceFactoryImpl(clock, stores)),
  ).create(ctx, { UsernameAttributes: ['email'] });
  const noKms = {
    encrypt: () => Promise.reject(new Error('KMS is not available in the local stack')),
  };
  const triggers = new m.TriggersService(clock, cognito, new m.LambdaService({}, undefined), noKms);
  const tokenConfig = { IssuerDomain: '' };
  const config = {
    TriggerFunctions: {},
    UserPoolDefaults: { UsernameAttributes: ['email'] },
    TokenConfig: tokenConfig,
  };
  const services = {
    clock,
    cognito,
    config,
    messages: new m.MessagesService(
      triggers,
      new m.MessageDeliveryService(new m.ConsoleMessageSender()),
    ),
    otp: m.otp,
    tokenGenerator: new m.JwtTokenGenerator(clock, triggers, tokenConfig),
    triggers,
  };
  const app = m.createServer(
    // + AdminUserGlobalSignOut and disabled users refused (local/cognito-access.ts, SPEC 8).
    withAccessControl(m.Router(services) as LocalRouter, services),
    logger,
    { development: false },
    services,
  ).application;
  const { createServer } = await import('node:http');
  const server = createServer(app);
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(port, LOCALHOST, () => resolveListen());
  });
  const address = server.address();
  if (!address || typeof address !== 'object') throw new Error('cognito-local has no address');
  const endpoint = `http://${LOCALHOST}:${address.port}`;
  // Tokens carry iss = <IssuerDomain>/<pool id>; known only now that the port is.
  tokenConfig.IssuerDomain = endpoint;
  return { server, endpoint };
}

function closeServer(server: Server): Promise<void> {
  return new Promise((r) => {
    server.close(() => r());
    server.closeAllConnections();
  });
}

// --- provisioning -------------------------------------------------------------------------------

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

/** Creates the demo pool and app client once, then the group, and restores the demo users. */
async function provision(client: CognitoIdentityProviderClient, dataDir: string): Promise<PoolIds> {
  const file = join(dataDir, IDS_FILE);
  let ids = await existingIds(client, file);
  if (!ids) {
    const pool = await client.send(
      new CreateUserPoolCommand({
        PoolName: POOL_NAME,
        UsernameAttributes: ['email'],
        AutoVerifiedAttributes: ['email'],
        MfaConfiguration: 'OFF',
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
  return ids;
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
 * A user of the local pool who can sign in at once: the e-mail address as username, verified,
 * with the demo password made permanent (no first-sign-in password change).
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
  const { server, endpoint } = await startCognitoLocalServer(options.port, dataDir);
  const client = cognitoClient(endpoint);
  try {
    const { userPoolId, clientId } = await provision(client, dataDir);
    const issuer = `${endpoint}/${userPoolId}`;
    return {
      endpoint,
      userPoolId,
      clientId,
      issuer,
      jwksUri: `${issuer}/.well-known/jwks.json`,
      tokenFor: (username, kind = 'access') =>
        signIn({ client, clientId, username, password: DEMO_PASSWORD, kind }),
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
