/**
 * The local stack's audit trail (SPEC 8, 9): `.local/audit.jsonl`, one event a line as the
 * functions wrote it (local/gateway-lambda.ts) and the local import drop (local/import-runner.ts),
 * and the questions `npm run audit` answers of it: who read or changed this customer or
 * transaction, and what did this user read. Oldest first, as written.
 */
import { createReadStream, existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { AuditEvent } from '../functions/shared/audit';
import { isImportAuditEvent, type ImportAuditEvent } from '../import/audit';
import { parseCanonicalId } from '../core/ids';

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
  return event.entity === query.by && event.recordId === query.id;
}

/** A record id as the events hold it, or undefined when `raw` is not one (SPEC 3.3). */
export function recordIdOf(raw: string): string | undefined {
  return parseCanonicalId(raw)?.toString();
}

/** Every event of the file that the query selects, oldest first; none when there is no file. */
export async function* auditEvents(file: string, query: AuditQuery): AsyncGenerator<AnyAuditEvent> {
  if (!existsSync(file)) return;
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    const event = JSON.parse(line) as AnyAuditEvent;
    if (matches(event, query)) yield event;
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

/** `user`: who the event's user is (local/user-names.ts), or its sub when nobody could say. */
export function auditRow(event: AnyAuditEvent, user: string): AuditRow {
  if (isImportAuditEvent(event))
    return {
      time: event.timestamp,
      user: `import ${event.importId}`,
      action: event.kind === 'record' ? event.action : event.kind,
      record: event.kind === 'record' ? `${event.entity} ${event.recordId}` : '-',
      result: event.kind === 'record' ? `line ${event.line}` : '-',
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
