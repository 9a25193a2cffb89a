/**
 * The whole rig on this machine: DynamoDB Local, a local Cognito user pool, a local S3 and the
 * API gateway in front of the deployed handlers, with demo data and users on first start.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { operatorSettingsFromEnv } from '../../functions/shared/config.ts';
import { PROJECT_ROOT } from '../../core/project-root.ts';
import type { Route } from '../../core/routes.ts';
import { startCognito, type LocalCognito, type TokenKind } from '../cognito/user-pool.ts';
import {
  JAVA_REQUIRED,
  javaOnPath,
  attachDynamoDbLocal,
  startDynamoDbLocal,
  type DynamoDbLocal,
} from '../dynamodb/dynamodb-local.ts';
import { startGateway, type Gateway, type HandlerLoader } from '../gateway/gateway.ts';
import { LOCAL_REGION } from '../gateway/api-event.ts';
import { auditedHandlers } from '../gateway/lambda.ts';
import { EMULATOR_REQUEST_TIMEOUT_MS, choosePort } from '../net.ts';
import { DEFAULT_BUCKET_NAME, startS3, type LocalS3 } from '../s3/s3-server.ts';
import { S3RVER_CREDENTIALS } from '../s3/s3-client.ts';
import { localBusinessName, localCurrency, withoutEmpty } from './start-settings.ts';
import {
  assertNotRunning,
  keepZone,
  localAuditDir,
  localCursorKey,
  removeOwnLocalState,
  SEED_MARKER,
  writeLocalState,
  type LocalState,
} from './state.ts';
import {
  FUNCTION_ENV,
  apiFunctionEnv,
  displayTimeEnv,
  type FunctionSettings,
} from '../../core/function-env.ts';
import { DEFAULT_TIME_ZONE } from '../../core/settings.ts';

export const DEFAULT_TABLE_NAME = 'currency-exchange';
export const DEMO_DATA_FILE = join(PROJECT_ROOT, 'local', 'demo-data.jsonl');
/** The local S3's objects, under the data directory (state.json names it for the tools). */
const s3DataDir = (dataDir: string) => join(dataDir, 's3');

export interface LocalRigOptions {
  /** API port on 127.0.0.1; 0 or omitted = any free port. */
  port?: number;
  /** Where everything persists (DynamoDB file, Cognito pools, S3 objects, state.json). */
  dataDir: string;
  /** Emulator ports; 0 or omitted = any free port. */
  ports?: { dynamoDb?: number; cognito?: number; s3?: number };
  /** Keep DynamoDB in memory (tests): nothing of the table survives stop(). */
  inMemory?: boolean;
  /**
   * Tests: a DynamoDB Local already running (the run's shared one) instead of a JVM of the
   * rig's own. The rig makes its table there and deletes it at stop(); give a table name no
   * other rig on that server uses.
   */
  dynamoDbEndpoint?: string;
  tableName?: string;
  bucketName?: string;
  /** Demo data imported on first start; false = none. Defaults to local/demo-data.jsonl. */
  seedFile?: string | false;
  /** Source of DISPLAY_TIME_ZONE, SIGNATURE_URL_TTL_SECONDS and READ_BUDGET_*; defaults to process.env. */
  env?: Record<string, string | undefined>;
  /** One line per API request; defaults to stdout. */
  log?: (line: string) => void;
  /** Tests: another route table or handler loader for the gateway. */
  routes?: readonly Route[];
  loadHandler?: HandlerLoader;
}

export interface LocalRig {
  readonly apiUrl: string;
  readonly tableName: string;
  readonly bucketName: string;
  readonly importBucketName: string;
  readonly dynamoDbEndpoint: string;
  readonly s3Endpoint: string;
  readonly cognito: {
    readonly endpoint: string;
    readonly userPoolId: string;
    readonly clientId: string;
    readonly issuer: string;
    /** The demo users' TOTP secrets (base32), by username: this data directory's. */
    readonly demoTotpSecrets: Readonly<Record<string, string>>;
  };
  /** What the first-start import wrote; undefined when nothing was imported this start. */
  readonly seeded: { records: number; transactions: number; customers: number } | undefined;
  /** Signs a demo user in (password, then their TOTP code): the access or ID token. */
  tokenFor(username: string, kind?: TokenKind): Promise<string>;
  /** A demo user's TOTP code now (or at `atMs`), as their authenticator app would show it. */
  currentCode(username: string, atMs?: number): string;
  stop(): Promise<void>;
}

/** Stops in reverse order of start. */
async function stopAll(stoppers: (() => Promise<void>)[]): Promise<void> {
  const errors: unknown[] = [];
  for (const stop of [...stoppers].reverse()) {
    try {
      await stop();
    } catch (error) {
      errors.push(error);
    }
  }
  if (errors.length) throw errors[0];
}

interface Emulators {
  dynamoDb: DynamoDbLocal;
  cognito: LocalCognito;
  s3: LocalS3;
  apiPort: number;
}

/** The three emulators side by side (DynamoDB Local, a JVM, is the slow one); each one started is on `stoppers`. */
async function startEmulators(
  options: LocalRigOptions,
  names: { dataDir: string; tableName: string; bucketName: string },
  stoppers: (() => Promise<void>)[],
): Promise<Emulators> {
  const { dataDir, tableName, bucketName } = names;
  const shared = options.dynamoDbEndpoint;
  const [dynamoDbPort, cognitoPort, s3Port, apiPort] = [
    shared ? 0 : await choosePort(options.ports?.dynamoDb, 'DynamoDB Local'),
    await choosePort(options.ports?.cognito, 'the local Cognito'),
    await choosePort(options.ports?.s3, 'the local S3'),
    await choosePort(options.port, 'the API'),
  ];
  const started = await Promise.allSettled([
    shared
      ? attachDynamoDbLocal(shared, tableName)
      : startDynamoDbLocal({
          port: dynamoDbPort,
          tableName,
          ...(options.inMemory ? {} : { dbPath: join(dataDir, 'dynamodb') }),
        }),
    startCognito({ port: cognitoPort, dataDir: join(dataDir, 'cognito') }),
    startS3({ port: s3Port, dataDir: s3DataDir(dataDir), bucketName }),
  ]);
  for (const result of started)
    if (result.status === 'fulfilled') stoppers.push(() => result.value.stop());
  const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  const [dynamoDb, cognito, s3] = started.map(
    (r) => (r as PromiseFulfilledResult<unknown>).value,
  ) as [DynamoDbLocal, LocalCognito, LocalS3];
  return { dynamoDb, cognito, s3, apiPort };
}

/** Demo data on first start: no marker yet, or a table this start had to create. */
async function seedOnFirstStart(
  options: LocalRigOptions,
  target: { dataDir: string; dynamoDb: DynamoDbLocal; tableName: string; displayTimeZone: string },
): Promise<LocalRig['seeded']> {
  const { dataDir, dynamoDb, tableName, displayTimeZone } = target;
  const marker = join(dataDir, SEED_MARKER);
  if (options.seedFile === false || (!dynamoDb.tableCreated && existsSync(marker)))
    return undefined;
  const file = options.seedFile ?? DEMO_DATA_FILE;
  const [{ importFile }, { createDocumentClient }] = await Promise.all([
    import('../../import/direct-import.ts'),
    import('../../functions/shared/document-client.ts'),
  ]);
  const client = createDocumentClient({
    region: 'us-east-1',
    endpoint: dynamoDb.endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 5,
    requestTimeoutMs: EMULATOR_REQUEST_TIMEOUT_MS,
  });
  try {
    const problems: string[] = [];
    const summary = await importFile(file, {
      client,
      tableName,
      displayTimeZone,
      onProblem: (problem) => problems.push(problem),
    }).catch((error: unknown) => {
      const detail = problems.length ? `\n${problems.join('\n')}` : '';
      throw new Error(
        `Could not import the demo data ${file}: ${(error as Error).message}${detail}`,
      );
    });
    const { records, transactions, customers } = summary;
    const seeded = { records, transactions, customers };
    writeFileSync(
      marker,
      `${JSON.stringify({ file, at: new Date().toISOString(), ...seeded }, null, 2)}\n`,
    );
    return seeded;
  } finally {
    client.destroy();
  }
}

/** What the handlers read from process.env: a stage's variables, pointed at the emulators. */
function functionEnv(
  emulators: Emulators,
  names: { dataDir: string; tableName: string; bucketName: string; settings: FunctionSettings },
): Record<string, string | undefined> {
  return {
    // The operator's settings: `npm start` takes them from its own environment, as a stage takes
    // them from -c, and the zone the rig keeps (its state), with its table.
    ...apiFunctionEnv(names.settings, {
      tableName: names.tableName,
      bucketName: names.bucketName,
      cursorKey: localCursorKey(names.dataDir),
    }),
    AWS_REGION: 'us-east-1',
    [FUNCTION_ENV.dynamoDbEndpoint]: emulators.dynamoDb.endpoint,
    [FUNCTION_ENV.s3Endpoint]: emulators.s3.endpoint,
    AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
    AWS_SESSION_TOKEN: undefined,
  };
}

/** The gateway in front of the handlers, which read the emulators' endpoints from process.env. */
function startApiGateway(
  options: LocalRigOptions,
  emulators: Emulators,
  names: {
    dataDir: string;
    tableName: string;
    bucketName: string;
    displayTimeZone: string;
    currency: string;
    businessName: string;
    settings: FunctionSettings;
  },
): Promise<Gateway> {
  const { cognito } = emulators;
  return startGateway({
    port: emulators.apiPort,
    authorizer: {
      issuer: cognito.issuer,
      audience: [cognito.clientId],
      jwksUri: cognito.jwksUri,
    },
    env: functionEnv(emulators, names),
    staffApp: {
      cognitoEndpoint: cognito.endpoint,
      userPoolClientId: cognito.clientId,
      region: LOCAL_REGION,
      filesOrigin: new URL(emulators.s3.endpoint).origin,
      issuer: 'Currency Exchange (local)',
      displayTimeZone: names.displayTimeZone,
      currency: names.currency,
      businessName: names.businessName,
    },
    ...(options.log ? { log: options.log } : {}),
    ...(options.routes ? { routes: options.routes } : {}),
    loadHandler: options.loadHandler ?? auditedHandlers(localAuditDir(names.dataDir)),
  });
}

function localStateOf(
  gateway: Gateway,
  { dynamoDb, s3, cognito }: Emulators,
  names: { dataDir: string; tableName: string; bucketName: string; displayTimeZone: string },
): LocalState {
  return {
    pid: process.pid,
    startedAt: new Date().toISOString(),
    apiUrl: gateway.url,
    region: 'us-east-1',
    tableName: names.tableName,
    bucketName: names.bucketName,
    importBucketName: s3.importBucketName,
    dynamoDbEndpoint: dynamoDb.endpoint,
    s3Endpoint: s3.endpoint,
    displayTimeZone: names.displayTimeZone,
    displayTimeZoneOffsets: displayTimeEnv(names.displayTimeZone)[
      FUNCTION_ENV.displayTimeZoneOffsets
    ],
    cognito: {
      endpoint: cognito.endpoint,
      userPoolId: cognito.userPoolId,
      clientId: cognito.clientId,
      issuer: cognito.issuer,
      demoTotpSecrets: { ...cognito.demoTotpSecrets },
    },
    s3DataDir: s3DataDir(names.dataDir),
  };
}

export async function startLocalRig(options: LocalRigOptions): Promise<LocalRig> {
  if (!javaOnPath()) throw new Error(JAVA_REQUIRED); // before anything starts
  const env = options.env ?? process.env;
  // The functions' own rules, now rather than as a 500 on every request (local/rig/start-settings.ts).
  const operatorSettings = operatorSettingsFromEnv(withoutEmpty(env));
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });
  assertNotRunning(dataDir);
  const tableName = options.tableName ?? DEFAULT_TABLE_NAME;
  const bucketName = options.bucketName ?? DEFAULT_BUCKET_NAME;
  const displayTimeZone = env[FUNCTION_ENV.displayTimeZone] || DEFAULT_TIME_ZONE;
  const currency = localCurrency(env);
  const businessName = localBusinessName(env);
  const stoppers: (() => Promise<void>)[] = [];

  try {
    const settings = { ...operatorSettings, displayTimeZone };
    const names = {
      dataDir,
      tableName,
      bucketName,
      displayTimeZone,
      currency,
      businessName,
      settings,
    };
    const emulators = await startEmulators(options, names, stoppers);
    const { dynamoDb, cognito, s3 } = emulators;
    keepZone(dataDir, displayTimeZone, dynamoDb.tableCreated);
    const seeded = await seedOnFirstStart(options, {
      dataDir,
      dynamoDb,
      tableName,
      displayTimeZone,
    });

    const gateway = await startApiGateway(options, emulators, names);
    stoppers.push(() => gateway.stop());

    const state = localStateOf(gateway, emulators, names);
    writeLocalState(dataDir, state);
    stoppers.push(async () => removeOwnLocalState(dataDir));

    let stopping: Promise<void> | undefined;
    return {
      apiUrl: gateway.url,
      tableName,
      bucketName,
      importBucketName: s3.importBucketName,
      dynamoDbEndpoint: dynamoDb.endpoint,
      s3Endpoint: s3.endpoint,
      cognito: state.cognito,
      seeded,
      tokenFor: (username, kind) => cognito.tokenFor(username, kind),
      currentCode: (username, atMs) => cognito.currentCode(username, atMs),
      stop: () => (stopping ??= stopAll(stoppers)),
    };
  } catch (error) {
    await stopAll(stoppers).catch(() => undefined);
    throw error;
  }
}
