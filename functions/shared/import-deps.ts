/**
 * What the import's functions build once per execution environment (functions/import-*.ts):
 * the S3 and DynamoDB clients and the settings, from the environment the stage sets.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { stdoutImportAudit } from '../../import/audit.ts';
import { createDocumentClient } from './document-client.ts';
import { Sha256 } from '../sdk/sha256.ts';
import type { StepDeps } from '../../import/steps/step.ts';
import {
  positiveFromEnv,
  required,
  timeZoneFromEnv,
  zoneOffsetsFromEnv,
  type Env,
} from '../../core/env.ts';
import { FUNCTION_ENV } from '../../core/function-env.ts';

export function importDepsFromEnv(env: Env = process.env): StepDeps {
  const region = required(env, 'AWS_REGION');
  const displayTimeZone = timeZoneFromEnv(env, FUNCTION_ENV.displayTimeZone);
  const s3Endpoint = env[FUNCTION_ENV.s3Endpoint] || undefined;
  return {
    s3: new S3Client({
      region,
      endpoint: s3Endpoint,
      forcePathStyle: s3Endpoint !== undefined,
      // Request signing's hashes without Node.js 24's slow Buffer-keyed HMAC (../sdk/sha256.ts).
      sha256: Sha256,
    }),
    client: createDocumentClient({
      region,
      endpoint: env[FUNCTION_ENV.dynamoDbEndpoint] || undefined,
      maxAttempts: 5,
      requestTimeoutMs: 10_000,
      environmentOnly: true,
    }),
    tableName: required(env, FUNCTION_ENV.tableName),
    displayTimeZone,
    displayTimeZoneOffsets: zoneOffsetsFromEnv(
      env,
      FUNCTION_ENV.displayTimeZoneOffsets,
      displayTimeZone,
    ),
    filesBucket: env[FUNCTION_ENV.filesBucket] || undefined,
    audit: stdoutImportAudit,
    partBytes: positiveFromEnv(env, FUNCTION_ENV.importPartBytes),
    writeConcurrency: positiveFromEnv(env, FUNCTION_ENV.importWriteConcurrency),
  };
}
