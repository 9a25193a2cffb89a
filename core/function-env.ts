/**
 * The names of the functions' environment variables, written once: the stack sets them
 * (lib/api.ts, lib/import-drop.ts), the local rig points them at the emulators
 * (local/rig/rig.ts), and the functions read them when they start (functions/shared/config.ts,
 * functions/shared/import-deps.ts). The read budgets' own names are in core/read-budgets.ts.
 */
import { readBudgetsToEnv, type ReadBudgets } from './read-budgets.ts';
import { zoneOffsets } from './times.ts';

export const FUNCTION_ENV = {
  tableName: 'TABLE_NAME',
  /** The files bucket, whose keys the GET functions presign. */
  bucketName: 'BUCKET_NAME',
  /** The files bucket as the import's CheckPart sees it; unset, no file is checked. */
  filesBucket: 'FILES_BUCKET',
  urlTtlSeconds: 'SIGNATURE_URL_TTL_SECONDS',
  displayTimeZone: 'DISPLAY_TIME_ZONE',
  /** The zone's offsets (core/times.ts ZoneOffsets), as displayTimeEnv writes them. */
  displayTimeZoneOffsets: 'DISPLAY_TIME_ZONE_OFFSETS',
  /**
   * The stage's secret that seals lookup cursors (functions/shared/cursor.ts): in a stage a
   * Secrets Manager value resolved at deploy time (lib/api.ts), locally `.local/cursor-key`.
   */
  cursorKey: 'CURSOR_KEY',
  /** Local emulators only. */
  dynamoDbEndpoint: 'DYNAMODB_ENDPOINT',
  /** Local emulators only: path-style URLs. */
  s3Endpoint: 'S3_ENDPOINT',
  /** The import's part size and write concurrency: tests and the benchmark set them. */
  importPartBytes: 'IMPORT_PART_BYTES',
  importWriteConcurrency: 'IMPORT_WRITE_CONCURRENCY',
} as const;

/** The zone the functions show and read times in, with its table when it has one. */
export function displayTimeEnv(timeZone: string): Record<string, string> {
  const table = zoneOffsets(timeZone);
  return {
    [FUNCTION_ENV.displayTimeZone]: timeZone,
    ...(table ? { [FUNCTION_ENV.displayTimeZoneOffsets]: JSON.stringify(table) } : {}),
  };
}

/** The operator's settings the API functions read: a stage's from -c, `npm start`'s from its environment. */
export interface FunctionSettings {
  signatureUrlTtlSeconds: number;
  displayTimeZone: string;
  readBudgets: ReadBudgets;
}

/**
 * The API functions' environment. A stage sets it (lib/api.ts) and so does the local rig
 * (local/rig/rig.ts); the benchmark and the bundle tests run the bundles with it, so that they
 * measure and test what Lambda runs (the zone's offsets included).
 */
export function apiFunctionEnv(
  settings: FunctionSettings,
  resources: { tableName: string; bucketName: string; cursorKey: string },
): Record<string, string> {
  return {
    [FUNCTION_ENV.tableName]: resources.tableName,
    [FUNCTION_ENV.bucketName]: resources.bucketName,
    [FUNCTION_ENV.urlTtlSeconds]: String(settings.signatureUrlTtlSeconds),
    ...displayTimeEnv(settings.displayTimeZone),
    // SPEC 8: the functions count reads per user and route against these.
    ...readBudgetsToEnv(settings.readBudgets),
    [FUNCTION_ENV.cursorKey]: resources.cursorKey,
  };
}
