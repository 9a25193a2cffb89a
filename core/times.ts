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
   * shown. Nothing when the zone has its table; nothing after the first call.
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
 * A zone's offsets from UTC over a span of years, worked out where ICU is loaded anyway (the
 * stage's synth, `npm start`) and handed to the functions in their environment. With it a
 * function shows and reads times without ICU: the first Intl formatter of a process loads the
 * zone data, which a cold start pays before its first response (docs/performance.md).
 */
export interface ZoneOffsets {
  readonly timeZone: string;
  /** The span, seconds since the epoch: from the first entry's start until `until`. */
  readonly until: number;
  /** [start, offset] in seconds, in time order: each offset holds until the next one starts. */
  readonly offsets: readonly (readonly [number, number])[];
}

/** The span a table covers: zones change their rules with notice, and a deploy recomputes it. */
const TABLE_FROM = Date.UTC(1970, 0, 1);
const TABLE_UNTIL = Date.UTC(2100, 0, 1);
/** More changes than this (a zone with daylight saving) and the zone gets no table: ICU serves it. */
export const MAX_TABLE_CHANGES = 16;

const tables = new Map<string, ZoneOffsets | undefined>();

/**
 * The zone's table, or undefined when its offset changes more than MAX_TABLE_CHANGES times in
 * the span. Offsets are sampled daily, then each change is found to the second.
 */
export function zoneOffsets(timeZone: string): ZoneOffsets | undefined {
  if (tables.has(timeZone)) return tables.get(timeZone);
  if (timeZone === 'UTC') return UTC_TABLE;
  const format = formatter(timeZone);
  const offsetAt = (ms: number) => (asUtc(wallTime(format, ms))! - ms) / 1000;
  const offsets: [number, number][] = [[TABLE_FROM / 1000, offsetAt(TABLE_FROM)]];
  for (
    let day = TABLE_FROM + DAY_MS;
    day < TABLE_UNTIL && offsets.length <= MAX_TABLE_CHANGES + 1;
    day += DAY_MS
  ) {
    const offset = offsetAt(day);
    if (offset === offsets.at(-1)![1]) continue;
    let [before, after] = [day / 1000 - 86_400, day / 1000];
    while (after - before > 1) {
      const mid = Math.floor((before + after) / 2);
      if (offsetAt(mid * 1000) === offset) after = mid;
      else before = mid;
    }
    offsets.push([after, offset]);
  }
  const table =
    offsets.length > MAX_TABLE_CHANGES + 1
      ? undefined
      : { timeZone, until: TABLE_UNTIL / 1000, offsets };
  tables.set(timeZone, table);
  return table;
}

/** A table from the environment, refused unless it is well formed and for `timeZone`. */
export function parseZoneOffsets(json: string, timeZone: string): ZoneOffsets | undefined {
  try {
    const table = JSON.parse(json) as ZoneOffsets;
    const starts = table.offsets.map(([start]) => start);
    const whole = [table.until, ...table.offsets.flat()].every(Number.isSafeInteger);
    const ordered = starts.every((start, i) => i === 0 || start > starts[i - 1]!);
    return table.timeZone === timeZone &&
      whole &&
      ordered &&
      table.offsets.length > 0 &&
      table.offsets.every((entry) => entry.length === 2) &&
      table.until > starts.at(-1)!
      ? table
      : undefined;
  } catch {
    return undefined;
  }
}

function wallTime(format: Intl.DateTimeFormat, epochMs: number): string {
  const p: Record<string, string> = {};
  for (const { type, value } of format.formatToParts(epochMs)) p[type] = value;
  return `${p.year?.padStart(4, '0')}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
}

/** `YYYY-MM-DD HH:MM:SS` of an instant shifted by an offset, without a formatter. */
function shifted(epochMs: number, offsetSeconds: number): string {
  const iso = new Date(epochMs + offsetSeconds * 1000).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
}

/** UTC's table, known without ICU: one offset over every year a stored time can name. */
const UTC_TABLE: ZoneOffsets = {
  timeZone: 'UTC',
  until: Date.UTC(10_000, 0, 1) / 1000,
  offsets: [[-62_135_596_800, 0]], // 0001-01-01T00:00:00Z
};

/**
 * Built once per zone: formatters are costly to create and cheap to reuse, and none is made while
 * the zone's table covers the times asked for.
 */
export function createTimeCodec(
  timeZone: string,
  table: ZoneOffsets | undefined = timeZone === 'UTC' ? UTC_TABLE : undefined,
): TimeCodec {
  // Made on first use, or by prepare() when there is no table.
  let format: Intl.DateTimeFormat | undefined;
  const fromIcu = (epochMs: number) => wallTime((format ??= formatter(timeZone)), epochMs);
  const from = (table?.offsets[0]![0] ?? 0) * 1000;
  const until = (table?.until ?? 0) * 1000;
  const inTable = (epochMs: number) => epochMs >= from && epochMs < until;
  const offsetAt = (epochMs: number) => {
    let offset = 0;
    for (const [start, seconds] of table!.offsets) {
      if (start * 1000 > epochMs) break;
      offset = seconds;
    }
    return offset;
  };
  const wallOf = (epochMs: number) =>
    inTable(epochMs) ? shifted(epochMs, offsetAt(epochMs)) : fromIcu(epochMs);

  return {
    timeZone,
    prepare() {
      if (table === undefined && format === undefined) fromIcu(0);
    },
    display(stored) {
      // An invalid time is outside every table: formatToParts throws a RangeError.
      return wallOf(Date.parse(stored));
    },
    store(wall) {
      const naive = asUtc(wall);
      if (naive === undefined) return undefined;
      // Every offset the zone can have within a day either side: the table's, or the ICU's a day
      // before and after (which covers every transition). Of the instants that show as this wall
      // time, the earlier wins for a repeated hour.
      const offsets =
        inTable(naive - DAY_MS) && inTable(naive + DAY_MS)
          ? table!.offsets.map(([, seconds]) => seconds * 1000)
          : [-DAY_MS, DAY_MS].map((shift) => asUtc(fromIcu(naive + shift))! - (naive + shift));
      const found = offsets
        .map((offset) => naive - offset)
        .filter((t) => wallOf(t) === wall)
        .sort((a, b) => a - b)[0];
      return found === undefined ? undefined : new Date(found).toISOString().slice(0, 19) + 'Z';
    },
  };
}
