/**
 * What the import drop's steps (SPEC 9, docs/import.md) share: each step's descriptor, what an
 * execution starts with, what a step is given, and the report it ends with. Each step is what one
 * state of the workflow runs (functions/import-*.ts in AWS, the local runner in-process); between
 * steps the state is in the import bucket's work folder (./work-folder.ts), so that each step can
 * be retried alone.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ImportAuditSink, Uploader } from '../audit.ts';
import type { ZoneOffsets } from '../../core/times.ts';
import type { ImportSummary } from '../summary.ts';
import type { WriteSlots } from '../write-records.ts';
import type { Part } from '../parts.ts';
import type { ExecutionAttempt } from './work-folder.ts';

/**
 * Each step, by the name of its state in the workflow (stage/import-workflow.ts): its function's
 * entry (functions/<entry>.ts), memory in MB (CPU grows with it) and time limit in seconds. The
 * time limit is both the function's timeout (lib/import-drop.ts) and its Task's `TimeoutSeconds`,
 * so that the workflow never waits on a step longer than Lambda lets it run, and the local runner
 * cuts it at the same time. AWS Lambda's own limit is 900 s.
 */
export const IMPORT_STEPS = {
  Plan: { entry: 'import-plan', memoryMb: 1024, timeoutSeconds: 900 },
  CheckPart: { entry: 'import-check-part', memoryMb: 1769, timeoutSeconds: 900 },
  Verify: { entry: 'import-verify', memoryMb: 3008, timeoutSeconds: 900 },
  WritePart: { entry: 'import-write-part', memoryMb: 1769, timeoutSeconds: 900 },
  Report: { entry: 'import-report', memoryMb: 1024, timeoutSeconds: 300 },
} as const;
export type ImportStep = keyof typeof IMPORT_STEPS;

/**
 * A whole import's limit: long enough for the largest backfill (docs/performance.md), so it only
 * stops one that hangs, and the stage's timed-out alarm (lib/import-drop.ts) says so; a timed-out
 * import writes no report.
 */
export const IMPORT_TIMEOUT_SECONDS = 12 * 60 * 60;

/** What the EventBridge rule (and the local drop) start an import with. */
export interface ExecutionInput {
  bucket: string;
  key: string;
  versionId: string;
  size: number;
  requester: string;
  sourceIp: string;
  s3RequestId: string;
  /** When S3 stored the file (the event's time): with `sequencer`, the import's version. */
  eventTime: string;
  /** S3's sequencer of the upload (hex); locally the upload's end in milliseconds, in hex. */
  sequencer?: string;
  /**
   * The execution running the import (`$$.Execution.Id`), added by the workflow's first state:
   * Plan claims the upload for it (./work-folder.ts claimImport).
   */
  execution?: { id: string };
}

export type Outcome = 'imported' | 'rejected' | 'failed';

export interface ImportReport {
  importId: string;
  outcome: Outcome;
  /** The import's version (core/import-version.ts); none when Plan did not run. */
  version?: string;
  key: string;
  versionId: string;
  sha256: string | null;
  startedAt: string | null;
  endedAt: string;
  counts: ImportSummary;
  /** Every problem, or the first 1,000 (../parts.ts); `problemCount` is the exact total. */
  problems: string[];
  problemCount: number;
  /**
   * Files the records name that the files bucket lacks (../file-check.ts). The records are
   * imported all the same, and their links answer 404 until the file is put. Only the first
   * 100,000 are kept (../parts.ts); `warningCount` is exact.
   */
  warnings: string[];
  warningCount: number;
  /**
   * Customers whose `tin` or `sss` has an unexpected shape, or whose identifier or last name no
   * lookup finds (SPEC 10, core/lookups.ts lookupWarnings): imported as given. The first 100,000;
   * `lookupWarningCount` is exact.
   */
  lookupWarnings: string[];
  lookupWarningCount: number;
  /**
   * Files the replaced or deleted records named and no longer do, for the operator to remove
   * (docs/security.md): the import never deletes a file, which another record may name (one
   * the same part still names is not listed). The first 1,000 in file order, of every part, one
   * stopped half-way as far as it saved; `filesLeftCount` is their exact count.
   */
  filesLeft: string[];
  filesLeftCount: number;
  /**
   * Records found already written by this import (a write sent again, a part run again) in an
   * item that keeps no PRIOR's (core/layout.ts: written before items kept them), whose earlier
   * state is not known: the first 1,000 in file order; `counts.again` is their count.
   */
  writtenAgain?: string[];
  /**
   * Records this import may have written (or deleted) before a later file replaced them: a send
   * whose answer was lost may have landed, and two later files' writes have landed since
   * (import/writer.ts). What they replaced, and the files that named, is not known. The first 1,000 in file order; `counts.maybe` is their count.
   */
  mayHaveWritten?: string[];
  /** A failed import: what stopped it (never record data: see the Report step). */
  error?: string;
  /**
   * Report itself failed (ReportFallback): what the parts wrote is not counted, and `counts`
   * are zeros, not what is in the table.
   */
  notCounted?: true;
  /**
   * The file's parts and those written whole (their indexes). In a failed import `counts` also
   * holds what the other parts wrote before they stopped: every record counted is in the table.
   */
  parts?: { total: number; written: number[] };
}

/**
 * A step that stopped on purpose: its time limit near, or its import already failed elsewhere.
 * Never retried (stage/import-workflow.ts): the same part would stop again.
 */
export class ImportStopped extends Error {
  override readonly name = 'ImportStopped';
}

/** The part of Lambda's context a step reads: how long it may still run. */
export interface StepContext {
  getRemainingTimeInMillis(): number;
}

export interface StepDeps {
  s3: S3Client;
  client: DynamoDBDocumentClient;
  tableName: string;
  /** The stage's zone: times in the file are read in it (SPEC 3.5). */
  displayTimeZone: string;
  /** Its offsets, when the stage worked them out (core/times.ts). */
  displayTimeZoneOffsets?: ZoneOffsets | undefined;
  /** The files bucket: records naming a key it lacks are warned of (../file-check.ts). */
  filesBucket?: string;
  audit: ImportAuditSink;
  partBytes?: number;
  /** Groups a part writes at once; default the direct import's (import/write-records.ts). */
  writeConcurrency?: number;
  /** Records a group of a part holds; default the direct import's 25 (tests draw fewer). */
  recordsPerGroup?: number;
  /** Slots every part this process writes shares (the local drop's; see WriteSlots). */
  writeSlots?: WriteSlots;
  /** Told the records (and deletes) of each group as it is written: the local progress line. */
  onRecordsWritten?: (records: number) => void;
}

/** A Map item: one part of one import, and the execution attempt writing it. */
export interface PartInput extends ExecutionAttempt {
  importId: string;
  /** The import's version: every write of it carries this one. */
  version: string;
  bucket: string;
  key: string;
  versionId: string;
  part: Part;
}

export const uploader = (input: Partial<ExecutionInput>): Uploader => ({
  requester: input.requester ?? null,
  sourceIp: input.sourceIp ?? null,
  s3RequestId: input.s3RequestId ?? null,
});
