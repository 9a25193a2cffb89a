/**
 * The rules of the settings that both the stack (CDK context, checked at synth) and the functions
 * (environment, checked at start) take, so that a value one accepts the other accepts too.
 */

/** Lifetime of presigned file URLs, seconds (SPEC 3.4). */
export const URL_TTL_SECONDS = { default: 300, min: 1, max: 3600 } as const;
/** Display time zone (SPEC 3.5): the business is in the Philippines. */
export const DEFAULT_TIME_ZONE = 'Asia/Manila';

/**
 * The business's own currency (ISO 4217 code): what amounts reckoned at a rate (received amounts,
 * totals, profits) are in. The staff page shows it beside them; the API's amounts carry none.
 */
export const DEFAULT_CURRENCY = 'PHP';
export const CURRENCY_RULE = 'an ISO 4217 currency code of three capital letters, such as PHP';
export const isCurrency = (code: string): boolean => /^[A-Z]{3}$/.test(code);

export function isUrlTtl(seconds: number): boolean {
  return (
    Number.isInteger(seconds) && seconds >= URL_TTL_SECONDS.min && seconds <= URL_TTL_SECONDS.max
  );
}

export const URL_TTL_RULE = `an integer from ${URL_TTL_SECONDS.min} to ${URL_TTL_SECONDS.max}`;

export const TIME_ZONE_RULE = 'an IANA time zone such as UTC or Asia/Manila';

/**
 * An IANA zone Intl knows. UTC and the default are always valid; checking them would load Intl's
 * zone data at init for nothing (core/times.ts, docs/performance.md).
 */
export function isTimeZone(zone: string): boolean {
  if (zone === 'UTC' || zone === DEFAULT_TIME_ZONE) return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
