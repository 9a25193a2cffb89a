/**
 * cognito-local's server, run in-process. Its services are wired up here so that its data lives
 * under our data directory and it binds 127.0.0.1. The wrappers in ./access.ts, ./mfa.ts and
 * ./refresh-tokens.ts make it answer as Cognito does.
 */
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { withAccessControl } from './access.ts';
import type { LocalRouter } from './internals.ts';
import { withMfa } from './mfa.ts';
import { withBoundedRefreshTokens } from './refresh-tokens.ts';
import { LOCALHOST } from '../net.ts';

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
 * KMS is loaded), logs go to stderr at error level only, the refresh tokens kept per user
 * are bounded (local/cognito/refresh-tokens.ts), and MFA behaves as Cognito's
 * (local/cognito/mfa.ts).
 */
export async function startCognitoLocalServer(
  port: number,
  dataDir: string,
): Promise<{ server: Server; endpoint: string; store: LocalStore }> {
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
    encrypt: () => Promise.reject(new Error('KMS is not available in the local rig')),
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
    // + AdminUserGlobalSignOut and disabled users refused (local/cognito/access.ts, SPEC 8),
    // + Cognito's MFA_SETUP and TOTP challenges (local/cognito/mfa.ts, issue 31).
    withAccessControl(withMfa(m.Router(services) as LocalRouter, services), services),
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
  return { server, endpoint, store: { cognito, ctx } };
}

/** cognito-local's services, for what provisioning does that no Cognito call can (a chosen TOTP secret). */
export interface LocalStore {
  cognito: unknown;
  ctx: object;
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((r) => {
    server.close(() => r());
    server.closeAllConnections();
  });
}

// --- provisioning -------------------------------------------------------------------------------
