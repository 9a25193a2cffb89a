/**
 * Times (SPEC 3.5): instants are stored in UTC as `YYYY-MM-DDTHH:MM:SSZ` and shown, and imported,
 * as `YYYY-MM-DD HH:MM:SS` wall time in the display zone.
 */
/** A day in milliseconds (UTC days: no daylight saving). */
export const DAY_MS = 86_400_000;

export const WALL_TIME = /^([0-9]{4})-([0-9]{2})-([0-9]{2}) ([0-9]{2}):([0-9]{2}):([0-9]{2})$/;
/** WALL_TIME as SPEC 3.5 and the contract write it, for messages. */
export const WALL_TIME_FORMAT = 'YYYY-MM-DD HH:MM:SS';
export const STORED_TIME = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$/;
const HOUR_MS = 3_600_000;

export interface TimeCodec {
  /** The display zone (IANA name), for messages. */
  readonly timeZone: string;
  /** Stored UTC instant to wall time in the display zone. */
  display(stored: string): string;
  /** Wall time in the display zone to the stored UTC instant; undefined when that wall time does not exist. */
  store(wall: string): string | undefined;
  /**
   * Makes the zone's formatter now, and has ICU load the zone's data, so that this happens while
   * something else waits (a GET's first requests on the wire) rather than before the first time
   * shown. Nothing in UTC; nothing after the first call.
   */
  prepare(): void;
}

function formatter(timeZone: string): Intl.DateTimeFormat {
  return new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
}

/**
 * Milliseconds since the epoch of a wall time read as if it were UTC; undefined when it is not in
 * WALL_TIME_FORMAT or names no day and time of the calendar (2023-02-30, 24:00:00), which Date
 * would roll over.
 */
function asUtc(wall: string): number | undefined {
  const m = WALL_TIME.exec(wall);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s] = m.map(Number) as [number, ...number[]];
  const date = new Date(0);
  date.setUTCFullYear(y!, mo! - 1, d!);
  date.setUTCHours(h!, mi!, s!, 0);
  return date.toISOString().slice(0, 19).replace('T', ' ') === wall ? date.getTime() : undefined;
}

/**
 * Why a wall time cannot be imported, apart from the zone: `format` when it is not in
 * WALL_TIME_FORMAT, `calendar` when it is but names no real day and time; undefined when it is
 * one (the zone may still skip it: TimeCodec.store says).
 */
export function wallTimeProblem(wall: string): 'format' | 'calendar' | undefined {
  if (!WALL_TIME.test(wall)) return 'format';
  return asUtc(wall) === undefined ? 'calendar' : undefined;
}

/**
 * Built once per zone: formatters are costly to create and cheap to reuse. In UTC
 * showing a time needs no formatter at all: the first Intl formatter of a process loads ICU's
 * zone data at cold start, formatToParts costs on every call, and toISOString gives the same wall
 * time (proleptic Gregorian, years 1-9999). Measured in docs/performance.md.
 */
export function createTimeCodec(timeZone: string): TimeCodec {
  const utc = timeZone === 'UTC';
  // Made on first use (or prepare()): in UTC the functions never need it (the import does).
  let format: Intl.DateTimeFormat | undefined;

  const wallOf = (epochMs: number): string => {
    format ??= formatter(timeZone);
    const p: Record<string, string> = {};
    for (const { type, value } of format.formatToParts(epochMs)) p[type] = value;
    return `${p.year?.padStart(4, '0')}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
  };

  return {
    timeZone,
    prepare() {
      if (!utc && format === undefined) wallOf(0);
    },
    display(stored) {
      if (!utc) return wallOf(Date.parse(stored));
      // Throws a RangeError on an invalid time, as formatToParts does.
      const iso = new Date(Date.parse(stored)).toISOString();
      return `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
    },
    store(wall) {
      const naive = asUtc(wall);
      if (naive === undefined) return undefined;
      // The zone's offset a day either side of the wall time covers every DST transition;
      // of the candidates that show as this wall time, the earlier wins for a repeated hour.
      const candidates = [-24, 24]
        .map(
          (hours) => naive - (asUtc(wallOf(naive + hours * HOUR_MS))! - (naive + hours * HOUR_MS)),
        )
        .filter((t) => wallOf(t) === wall)
        .sort((a, b) => a - b);
      const found = candidates[0];
      return found === undefined ? undefined : new Date(found).toISOString().slice(0, 19) + 'Z';
    },
  };
}
