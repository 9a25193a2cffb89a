/**
 * The page's own times (a printed record's): wall time in the stage's display zone, written as
 * the API writes times (SPEC 3.5) and saying the zone, as every time on the page does. No DOM
 * here: the unit tests run it in Node.
 */
import { createTimeCodec } from '../core/times.ts';

/** What the page learns from its stage's configuration (config.json). */
export interface Terms {
  readonly displayTimeZone: string;
  readonly currency: string;
  readonly businessName: string;
}

/** An instant as wall time in `zone`, as the API shows stored times (core/times.ts). */
export const wallTime = (at: Date, zone: string): string =>
  createTimeCodec(zone).display(`${at.toISOString().slice(0, 19)}Z`);

/** The time a printed record gives for its printing: now, in the stage's zone, saying which. */
export const printedTime = (terms: Terms, at = new Date()): string =>
  `${wallTime(at, terms.displayTimeZone)} (${terms.displayTimeZone})`;
