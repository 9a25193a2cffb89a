/** Configuration of the functions, read once from the environment when a function starts. */
import { URL_TTL_RULE, URL_TTL_SECONDS, isUrlTtl } from '../../core/settings.ts';
import {
  ConfigError,
  required,
  timeZoneFromEnv,
  zoneOffsetsFromEnv,
  type Env,
} from '../../core/env.ts';
import type { ZoneOffsets } from '../../core/times.ts';
import { readBudgetsFromEnv, type ReadBudgets } from '../../core/read-budgets.ts';
import { FUNCTION_ENV } from '../../core/function-env.ts';

export interface Config {
  readonly tableName: string;
  readonly bucketName: string;
  readonly region: string;
  /** Lifetime of presigned file URLs, 1..3600 seconds (SPEC 3.4). */
  readonly signatureUrlTtlSeconds: number;
  /** IANA zone in which times are shown and imported (SPEC 3.5). */
  readonly displayTimeZone: string;
  /** Its offsets, when the stage worked them out: times then shown without ICU. */
  readonly displayTimeZoneOffsets: ZoneOffsets | undefined;
  /** Reads per user, route and window (SPEC 8). */
  readonly readBudgets: ReadBudgets;
  /** The secret lookup cursors are sealed with (SPEC 10): at least 32 characters. */
  readonly cursorKey: string;
  /** Local emulators only: DynamoDB endpoint, e.g. http://127.0.0.1:8000. */
  readonly dynamoDbEndpoint: string | undefined;
  /** Local emulators only: S3 endpoint for path-style URLs, e.g. http://127.0.0.1:4569. */
  readonly s3Endpoint: string | undefined;
}

function ttl(env: Env): number {
  const raw = env[FUNCTION_ENV.urlTtlSeconds] ?? String(URL_TTL_SECONDS.default);
  // Canonical digits only: Number() would also take " 300", "3e2", "0300" or "0x12c".
  if (!/^[1-9][0-9]*$/.test(raw) || !isUrlTtl(Number(raw))) {
    throw new ConfigError(
      `${FUNCTION_ENV.urlTtlSeconds} must be ${URL_TTL_RULE}, got: ${JSON.stringify(raw)}`,
    );
  }
  return Number(raw);
}

/** A secret short enough to guess seals nothing: refused at start, never used. */
const MIN_CURSOR_KEY_CHARS = 32;

function cursorKey(env: Env): string {
  const key = required(env, FUNCTION_ENV.cursorKey);
  if (key.length < MIN_CURSOR_KEY_CHARS)
    throw new ConfigError(
      `${FUNCTION_ENV.cursorKey} must be at least ${MIN_CURSOR_KEY_CHARS} characters long`,
    );
  return key;
}

/** The settings an operator chooses (not the wiring): `npm start` checks them before it starts. */
export type OperatorSettings = Pick<
  Config,
  'signatureUrlTtlSeconds' | 'displayTimeZone' | 'readBudgets'
>;

/** The operator's settings alone, by the rules the functions apply at start; throws on a bad one. */
export function operatorSettingsFromEnv(env: Env): OperatorSettings {
  return {
    signatureUrlTtlSeconds: ttl(env),
    displayTimeZone: timeZoneFromEnv(env, FUNCTION_ENV.displayTimeZone),
    readBudgets: readBudgetsFromEnv(env),
  };
}

export function loadConfig(env: Env): Config {
  const settings = operatorSettingsFromEnv(env);
  return {
    tableName: required(env, FUNCTION_ENV.tableName),
    bucketName: required(env, FUNCTION_ENV.bucketName),
    region: required(env, 'AWS_REGION'),
    cursorKey: cursorKey(env),
    ...settings,
    displayTimeZoneOffsets: zoneOffsetsFromEnv(
      env,
      FUNCTION_ENV.displayTimeZoneOffsets,
      settings.displayTimeZone,
    ),
    dynamoDbEndpoint: env[FUNCTION_ENV.dynamoDbEndpoint] || undefined,
    s3Endpoint: env[FUNCTION_ENV.s3Endpoint] || undefined,
  };
}
