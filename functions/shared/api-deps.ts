/**
 * What a function builds once per execution environment: the DynamoDB client, the store, the
 * presigner and the time formatter, from its configuration. Handlers take these as their
 * dependencies (createHandler in each entry file), so tests build them from a Config of their own.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import { createTimeCodec } from '../../core/times.ts';
import { createTableClient } from '../sdk/table-client.ts';
import { createAccessGate, type AccessGate } from './access.ts';
import { stdoutAudit, type AuditSink } from './audit.ts';
import { loadConfig, type Config } from './config.ts';
import { createCursorCodec, type CursorCodec } from './cursor.ts';
import type { MappingDeps } from './mapping.ts';
import { createPresigner } from './presigner.ts';
import { createStore, type RecordStore } from './store.ts';

export interface ApiDeps extends MappingDeps {
  readonly store: RecordStore;
  readonly access: AccessGate;
  readonly audit: AuditSink;
  readonly cursors: CursorCodec;
}

export interface ApiDepsOptions {
  /** A client of the caller's (tests: one behind a fault proxy); else one made from the config. */
  client?: DynamoDBClient;
  /** What the presigner signs with; else the function's own (../sdk/lambda-credentials). */
  credentials?: AwsCredentialIdentityProvider;
  /** Where audit events go; else stdout, the function's log group. */
  audit?: AuditSink;
  /** The clock of the read budgets' windows and of cursors' ages (tests move it). */
  now?: () => number;
}

export function createApiDeps(config: Config, options: ApiDepsOptions = {}): ApiDeps {
  const client =
    options.client ??
    createTableClient({
      region: config.region,
      endpoint: config.dynamoDbEndpoint,
      environmentOnly: true,
    });
  return {
    store: createStore(client, config.tableName),
    access: createAccessGate(client, config.tableName, config.readBudgets, options.now),
    audit: options.audit ?? stdoutAudit,
    cursors: createCursorCodec(config.cursorKey, options.now),
    presign: createPresigner({
      region: config.region,
      bucketName: config.bucketName,
      ttlSeconds: config.signatureUrlTtlSeconds,
      endpoint: config.s3Endpoint,
      credentialProvider: options.credentials,
    }),
    times: createTimeCodec(config.displayTimeZone, config.displayTimeZoneOffsets),
  };
}

/** The deps of a deployed function: its configuration from the environment Lambda sets. */
export const apiDepsFromEnv = (): ApiDeps => createApiDeps(loadConfig(process.env));
