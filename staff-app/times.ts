/**
 * The page's own times (a printed record's): wall time in the stage's display zone, written as
 * the API writes times (SPEC 3.5) and saying the zone, as every time on the page does. No DOM
 * here: the unit tests run it in Node.
 */

/** What the page learns from its stage's configuration (config.json). */
export interface Terms {
  readonly displayTimeZone: string;
  readonly currency: string;
  readonly businessName: string;
}

/** An instant as wall time in `zone`: `2023-09-15 10:01:02`. */
export function wallTime(at: Date, zone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(at);
  const part = (type: Intl.DateTimeFormatPartTypes) =>
    parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')}:${part('second')}`;
}

/** The time a printed record gives for its printing: now, in the stage's zone, saying which. */
export const printedTime = (terms: Terms, at = new Date()): string =>
  `${wallTime(at, terms.displayTimeZone)} (${terms.displayTimeZone})`;
