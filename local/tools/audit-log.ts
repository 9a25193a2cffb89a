/**
 * The local rig's audit trail (SPEC 8, 9): `.local/audit/YYYY-MM-DD.jsonl`, one file per UTC
 * day of the events' timestamps, one event a line as the functions wrote it
 * (local/gateway/lambda.ts) and the local import drop (local/step-functions/import-runner.ts), both through
 * appendAuditEvents; and the questions `npm run audit` answers of it: who read or changed this
 * customer or transaction, and what did this user read. Oldest first, as written.
 *
 * Day files, so that a question about some days reads those days only (issue 30: one file read
 * whole took seconds a million lines), and so that old days can go whole (retention, below).
 */
import {
  appendFileSync,
  createReadStream,
  existsSync,
  mkdirSync,
  readdirSync,
  rmSync,
  statSync,
} from 'node:fs';
import { join } from 'node:path';
import type { AuditEvent } from '../../functions/shared/audit.ts';
import { isImportAuditEvent, type ImportAuditEvent } from '../../import/audit.ts';
import { parseCanonicalId } from '../../core/ids.ts';
import { AUDIT_RETENTION_DAYS } from '../../core/retention.ts';
import { DAY_MS } from '../../core/times.ts';

export type AuditQuery =
  | { by: 'customer' | 'transaction'; id: string }
  /** A user by any of the names an event may carry: the `sub` or the username. */
  | { by: 'user'; names: readonly string[] };

export const AUDIT_KINDS = ['customer', 'transaction', 'user'] as const;

/** A read (SPEC 8), or an import's start, end or change of one record (SPEC 9). */
export type AnyAuditEvent = AuditEvent | ImportAuditEvent;

export function matches(event: AnyAuditEvent, query: AuditQuery): boolean {
  // A record's changes are listed beside its reads; an import's start and end name no record.
  if (isImportAuditEvent(event))
    return (
      event.kind === 'record' &&
      query.by !== 'user' &&
      event.entity === query.by &&
      event.recordId === query.id
    );
  if (query.by === 'user')
    return query.names.some((name) => name === event.sub || name === event.username);
  // A lookup (SPEC 10) names the records it returned, and a customer's transactions the customer.
  if (event.lookup !== undefined)
    return (
      (event.entity === query.by && (event.recordIds ?? []).includes(query.id)) ||
      (query.by === 'customer' && event.lookup === 'customer_id' && event.recordId === query.id)
    );
  return event.entity === query.by && event.recordId === query.id;
}

/** A record id as the events hold it, or undefined when `raw` is not one (SPEC 3.3). */
export function recordIdOf(raw: string): string | undefined {
  return parseCanonicalId(raw)?.toString();
}

// --- writing -------------------------------------------------------------------------------------

/** Days a day file is kept locally: as long as the stage keeps audit events. */
export const LOCAL_AUDIT_RETENTION_DAYS = AUDIT_RETENTION_DAYS;

const DAY_FILE = /^(\d{4}-\d{2}-\d{2})\.jsonl$/;

/** The UTC day (YYYY-MM-DD) of an event's timestamp; today for one that is no time. */
export function dayOf(timestamp: string): string {
  const ms = Date.parse(timestamp);
  return new Date(Number.isNaN(ms) ? Date.now() : ms).toISOString().slice(0, 10);
}

/** A trail that names a `.jsonl` file is that one file (scratch trails of tests and benches). */
const isOneFile = (trail: string): boolean => trail.endsWith('.jsonl');

/** The last day each trail was written in by this process: a new day prunes the old ones. */
const lastDayWritten = new Map<string, string>();

/**
 * Appends events to a trail, one JSON line each: `trail` is a directory (the local rig's
 * `.local/audit/`), each event going to the file of its timestamp's UTC day, or a `.jsonl` file,
 * all into it. Opened per write, so a file moved or removed (a test's, a cleared .local/) is
 * never written through a stale descriptor. The first write of a day in a process also removes
 * the day files older than LOCAL_AUDIT_RETENTION_DAYS.
 */
export function appendAuditEvents(trail: string, events: readonly { timestamp: string }[]): void {
  if (events.length === 0) return;
  if (isOneFile(trail)) {
    appendFileSync(trail, events.map((event) => `${JSON.stringify(event)}\n`).join(''));
    return;
  }
  const byDay = new Map<string, string>();
  for (const event of events) {
    const day = dayOf(event.timestamp);
    byDay.set(day, `${byDay.get(day) ?? ''}${JSON.stringify(event)}\n`);
  }
  for (const [day, lines] of byDay) {
    if (lastDayWritten.get(trail) !== day) {
      mkdirSync(trail, { recursive: true });
      removeExpiredDays(trail);
      lastDayWritten.set(trail, day);
    }
    const file = join(trail, `${day}.jsonl`);
    try {
      appendFileSync(file, lines);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      mkdirSync(trail, { recursive: true }); // the directory was removed since
      appendFileSync(file, lines);
    }
  }
}

/** Removes the trail's day files older than LOCAL_AUDIT_RETENTION_DAYS before `now`. */
export function removeExpiredDays(dir: string, now = Date.now()): void {
  const oldest = new Date(now - LOCAL_AUDIT_RETENTION_DAYS * DAY_MS).toISOString().slice(0, 10);
  for (const name of readdirSync(dir)) {
    const day = DAY_FILE.exec(name)?.[1];
    if (day !== undefined && day < oldest) rmSync(join(dir, name), { force: true });
  }
}

// --- reading -------------------------------------------------------------------------------------

/** Instants, both included; either may be left open. */
export interface AuditRange {
  since?: Date;
  until?: Date;
}

/** What a read cost: the files opened and the lines read in them (matched or not). */
export interface AuditReadStats {
  files: number;
  lines: number;
}

/** The string a `--since` or `--until` value is written as, and the instant it means. */
export const AUDIT_TIME_FORMAT =
  'a UTC day (2026-01-31) or an ISO time with its zone (2026-01-31T09:00:00Z)';

/**
 * `--since` / `--until`: a UTC day (the day's first instant for since, its last for until, so
 * that `--since D --until D` is the whole day D) or an ISO time with `Z` or an offset (never
 * read in the machine's zone). Undefined when `value` is neither.
 */
export function parseAuditTime(value: string, edge: 'since' | 'until'): Date | undefined {
  const day = value.slice(0, 10);
  const dayStart = Date.parse(`${day}T00:00:00.000Z`);
  // Date.parse rolls 2026-02-30 over to March: a day that does not exist is refused.
  if (Number.isNaN(dayStart) || new Date(dayStart).toISOString().slice(0, 10) !== day)
    return undefined;
  if (value === day) return new Date(edge === 'since' ? dayStart : dayStart + DAY_MS - 1);
  if (!/^T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(value.slice(10)))
    return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : new Date(ms);
}

const withinRange = (event: { timestamp: string }, range: AuditRange): boolean => {
  const ms = Date.parse(event.timestamp);
  return (
    (range.since === undefined || ms >= range.since.getTime()) &&
    (range.until === undefined || ms <= range.until.getTime())
  );
};

/** The trail's day files that hold the range's days, oldest first. */
function dayFiles(dir: string, range: AuditRange): { file: string; day: string }[] {
  const first = range.since && range.since.toISOString().slice(0, 10);
  const last = range.until && range.until.toISOString().slice(0, 10);
  return readdirSync(dir)
    .flatMap((name) => {
      const day = DAY_FILE.exec(name)?.[1];
      if (day === undefined || (first && day < first) || (last && day > last)) return [];
      return [{ file: join(dir, name), day }];
    })
    .sort((a, b) => (a.day < b.day ? -1 : 1));
}

const parseLine = (line: string): AnyAuditEvent | undefined =>
  line.trim() === '' ? undefined : (JSON.parse(line) as AnyAuditEvent);

/**
 * Every event of the trail that the query selects within the range (default: all of it),
 * oldest first; none when there is no trail. A directory: only the day files of the range's days
 * are opened. A `.jsonl` file (a scratch trail of a test or bench): read whole. `stats`, if
 * given, counts what was read.
 */
export async function* auditEvents(
  trail: string,
  query: AuditQuery,
  options: { range?: AuditRange; stats?: AuditReadStats } = {},
): AsyncGenerator<AnyAuditEvent> {
  if (!existsSync(trail)) return;
  const range = options.range ?? {};
  const open = range.since !== undefined || range.until !== undefined;
  const files = statSync(trail).isDirectory()
    ? dayFiles(trail, range).map(({ file, day }) => ({
        file,
        // Only a first or last day can hold events outside the range.
        check:
          open &&
          (day === range.since?.toISOString().slice(0, 10) ||
            day === range.until?.toISOString().slice(0, 10)),
      }))
    : [{ file: trail, check: open }];
  const { stats } = options;
  for (const { file, check } of files) {
    if (stats) stats.files += 1;
    // Split here, a chunk at a time: readline's iterator (an await per line) cost a second more a
    // million lines. Held at once: one chunk (64 KiB) and the line it cuts.
    let partial = '';
    for await (const chunk of createReadStream(file, { encoding: 'utf8' })) {
      const lines = (partial + (chunk as string)).split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        if (stats) stats.lines += 1;
        const event = parseLine(line);
        if (event && matches(event, query) && (!check || withinRange(event, range))) yield event;
      }
    }
    if (partial !== '') {
      if (stats) stats.lines += 1;
      const event = parseLine(partial);
      if (event && matches(event, query) && (!check || withinRange(event, range))) yield event;
    }
  }
}

/** One event as a person reads it: when, who, what of which record, and the outcome. */
export interface AuditRow {
  time: string;
  user: string;
  action: string;
  record: string;
  result: string;
}

const HEADINGS: AuditRow = {
  time: 'TIME',
  user: 'USER',
  action: 'ACTION',
  record: 'RECORD',
  result: 'RESULT',
};

/** `user`: who the event's user is (local/tools/user-names.ts), or its sub when nobody could say. */
export function auditRow(event: AnyAuditEvent, user: string): AuditRow {
  if (isImportAuditEvent(event))
    return {
      time: event.timestamp,
      user: `import ${event.importId}`,
      action: event.kind === 'record' ? event.action : event.kind,
      record: event.kind === 'record' ? `${event.entity} ${event.recordId}` : '-',
      result:
        event.kind !== 'record'
          ? '-'
          : `line ${event.line}${event.maybe ? ' (may have been written; replaced since by a later file)' : ''}`,
    };
  if (event.lookup !== undefined)
    return {
      time: event.timestamp,
      user,
      action: `lookup ${event.lookup === 'customer_id' ? `customer ${event.recordId}` : (event.lookup ?? '(refused)')}`,
      record: `${event.entity} ${(event.recordIds ?? []).join(',') || '-'}`,
      result: String(event.status),
    };
  return {
    time: event.timestamp,
    user,
    action: 'read',
    // A malformed id is not repeated in the event (functions/shared/audit.ts).
    record: `${event.entity} ${event.recordId ?? '(malformed id)'}`,
    result: String(event.status),
  };
}

/** Rows as aligned columns under headings, for a terminal. */
export function auditTable(rows: readonly AuditRow[]): string {
  const keys = Object.keys(HEADINGS) as (keyof AuditRow)[];
  const all = [HEADINGS, ...rows];
  const widths = keys.map((key) => Math.max(...all.map((row) => row[key].length)));
  return all
    .map((row) =>
      keys
        .map((key, i) => (i === keys.length - 1 ? row[key] : row[key].padEnd(widths[i]!)))
        .join('  '),
    )
    .join('\n');
}
