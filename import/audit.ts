/**
 * The import's audit events (SPEC 9): one when an import starts, one when it ends, one per record
 * written or deleted (or that may have been: `maybe`); never a field of a record. Written as the read events are
 * (functions/shared/audit.ts): a JSON line on stdout, in the function's log group, kept as long;
 * locally also in `.local/audit/` (one file per UTC day). Their `message` differs from the read
 * events' so that the read queries and metrics count reads only; `kind` says which of the three
 * an event is.
 */
import type { Entity } from '../core/entities.ts';
import type { ImportSummary } from './summary.ts';

export const IMPORT_AUDIT_MESSAGE = 'import-audit';

/** Who put the file and where (from the S3 event; see ExecutionInput). */
export interface Uploader {
  requester: string | null;
  sourceIp: string | null;
  s3RequestId: string | null;
}

interface Base {
  timestamp: string;
  level: 'INFO';
  message: typeof IMPORT_AUDIT_MESSAGE;
  importId: string;
}

export interface ImportStartedEvent extends Base, Uploader {
  kind: 'import-started';
  key: string;
  versionId: string;
  sha256: string;
  parts: number;
}

export interface ImportEndedEvent extends Base, Uploader {
  kind: 'import-ended';
  key: string;
  versionId: string;
  sha256: string | null;
  outcome: 'imported' | 'rejected' | 'failed';
  counts: ImportSummary;
  problems: number;
  /** The file's parts and those written whole (a failed import's counts add the others'). */
  parts?: { total: number; written: number[] };
  /** As the report's: Report failed, and `counts` are not what was written. */
  notCounted?: true;
}

export interface RecordChangedEvent extends Base {
  kind: 'record';
  entity: Entity;
  recordId: string;
  action: 'put' | 'delete';
  line: number;
  /**
   * The write may have been made, not surely: a send whose answer was lost may have landed
   * before a later file's write, which has replaced it since (import/writer.ts `maybe`).
   */
  maybe?: true;
}

export type ImportAuditEvent = ImportStartedEvent | ImportEndedEvent | RecordChangedEvent;

/** Takes several events at once: a written group's events go out in one write, not one each. */
export type ImportAuditSink = (...events: ImportAuditEvent[]) => void;

/** Events as the log holds them: one JSON line each. */
export const auditLines = (events: ImportAuditEvent[]): string =>
  events.map((event) => `${JSON.stringify(event)}\n`).join('');

/** Distributes Omit over the union, so each kind keeps its own fields. */
type Fields<E> = E extends ImportAuditEvent ? Omit<E, keyof Base> : never;

export const importAuditEvent = (
  importId: string,
  fields: Fields<ImportAuditEvent>,
): ImportAuditEvent =>
  ({
    timestamp: new Date().toISOString(),
    level: 'INFO',
    message: IMPORT_AUDIT_MESSAGE,
    importId,
    ...fields,
  }) as ImportAuditEvent;

/** Deployed: JSON lines on stdout, which Lambda puts in the function's log group, one a line. */
export const stdoutImportAudit: ImportAuditSink = (...events) => {
  process.stdout.write(auditLines(events));
};

export const isImportAuditEvent = (event: { message?: unknown }): event is ImportAuditEvent =>
  event.message === IMPORT_AUDIT_MESSAGE;
