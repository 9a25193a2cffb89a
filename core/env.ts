/**
 * Reading settings from the environment, by one set of rules wherever they are read. The functions
 * read them at start (functions/shared/config.ts, functions/shared/import-deps.ts), and so do
 * `npm start` and the commands.
 * A value that cannot be used is a ConfigError naming the variable and what it must be.
 */
import { DEFAULT_TIME_ZONE, TIME_ZONE_RULE, isTimeZone } from './settings.ts';
import { parseZoneOffsets, type ZoneOffsets } from './times.ts';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export type Env = Record<string, string | undefined>;

export function required(env: Env, name: string): string {
  const value = env[name];
  if (!value) throw new ConfigError(`Missing required environment variable ${name}`);
  return value;
}

/** A whole number from 1 to `max`, or undefined when unset or empty (canonical digits only). */
export function positiveFromEnv(
  env: Env,
  name: string,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = /^[1-9][0-9]*$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(Number.isSafeInteger(value) && value <= max)) {
    const allowed =
      max === Number.MAX_SAFE_INTEGER
        ? 'a positive whole number'
        : `a whole number from 1 to ${max}`;
    throw new ConfigError(`${name} must be ${allowed}, got: ${JSON.stringify(raw)}`);
  }
  return value;
}

/** An IANA zone (SPEC 3.5), the default when unset. */
export function timeZoneFromEnv(env: Env, name: string): string {
  const zone = env[name] ?? DEFAULT_TIME_ZONE;
  if (!isTimeZone(zone))
    throw new ConfigError(`${name} must be ${TIME_ZONE_RULE}, got: ${JSON.stringify(zone)}`);
  return zone;
}

/** The zone's table (core/times.ts), when the stage gave one; a table that is not the zone's is refused. */
export function zoneOffsetsFromEnv(
  env: Env,
  name: string,
  timeZone: string,
): ZoneOffsets | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const table = parseZoneOffsets(raw, timeZone);
  if (table === undefined)
    throw new ConfigError(`${name} must be the table of ${timeZone}'s offsets the stage computes`);
  return table;
}
