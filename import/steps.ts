/**
 * The import drop's steps (SPEC 9, docs/import.md): Plan, CheckPart, Verify, WritePart and
 * Report, each what one state of the workflow runs (functions/import-*.ts in AWS, the local
 * runner in-process). Between steps the state is in the import bucket under `work/<import id>/`,
 * so that each step can be retried or redriven alone; the report is `reports/<import id>.json`.
 */
import { createHash } from 'node:crypto';
import {
  GetObjectCommand,
  PutObjectCommand,
  type GetObjectCommandInput,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createTimeCodec } from '../core/times';
import { importAuditEvent, type ImportAuditSink, type Uploader } from './audit';
import { emptySummary, writeRecords, type ImportSummary, type WriteSlots } from './importer';
import { linesOf } from './lines';
import {
  DEFAULT_PART_BYTES,
  checkPart,
  partVerifier,
  planParts,
  storedRecords,
  storedRecordsWriter,
  type CheckedPart,
  type Part,
  type Verdict,
} from './parts';
import { createLineParser } from './records';

/** What the EventBridge rule (and the local drop) start an import with. */
export interface ExecutionInput {
  bucket: string;
  key: string;
  versionId: string;
  size: number;
  requester: string;
  sourceIp: string;
  s3RequestId: string;
  eventTime: string;
}

export type Outcome = 'imported' | 'rejected' | 'failed';

export interface ImportReport {
  importId: string;
  outcome: Outcome;
  key: string;
  versionId: string;
  sha256: string | null;
  startedAt: string | null;
  endedAt: string;
  counts: ImportSummary;
  /** Every problem, or the first 1,000 (./parts.ts); `problemCount` is the exact total. */
  problems: string[];
  problemCount: number;
  /** A failed import: what stopped it (never record data: see the Report step). */
  error?: string;
}

export interface StepDeps {
  s3: S3Client;
  client: DynamoDBDocumentClient;
  tableName: string;
  /** The stage's zone: times in the file are read in it (SPEC 3.5). */
  displayTimeZone: string;
  audit: ImportAuditSink;
  partBytes?: number;
  /** Groups a part writes at once; default the direct import's (import/importer.ts). */
  writeConcurrency?: number;
  /** Slots every part this process writes shares (the local drop's; see WriteSlots). */
  writeSlots?: WriteSlots;
}

export const PREFIX = { incoming: 'incoming/', reports: 'reports/', work: 'work/' } as const;
export const reportKey = (importId: string) => `${PREFIX.reports}${importId}.json`;
const workKey = (importId: string, name: string) => `${PREFIX.work}${importId}/${name}`;
export const manifestKey = (importId: string) => workKey(importId, 'manifest.json');
const checkedKey = (importId: string, index: number) => workKey(importId, `checked/${index}.json`);
const recordsKey = (importId: string, index: number) => workKey(importId, `records/${index}.jsonl`);
const writtenKey = (importId: string, index: number) => workKey(importId, `written/${index}.json`);
const problemsKey = (importId: string) => workKey(importId, 'problems.json');

/** Checked parts Verify reads ahead of the one it merges. */
const VERIFY_READ_AHEAD = 4;

/** One import per object version: a repeated event or a re-run is the same import. */
export function importIdOf(key: string, versionId: string): string {
  return createHash('sha256').update(`${key}\n${versionId}`).digest('hex').slice(0, 32);
}

/** An unversioned object (the local drop) has the version id `null`, as S3 says it. */
const version = (versionId: string): Pick<GetObjectCommandInput, 'VersionId'> =>
  versionId && versionId !== 'null' ? { VersionId: versionId } : {};

/** An object of the bucket, its body; undefined when there is none. */
async function objectBody(s3: S3Client, bucket: string, key: string) {
  try {
    return (await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }))).Body;
  } catch (error) {
    if ((error as { name?: string }).name === 'NoSuchKey') return undefined;
    throw error;
  }
}

/** An object of the bucket as JSON; undefined when there is none. */
export async function readJson<T>(
  s3: S3Client,
  bucket: string,
  key: string,
): Promise<T | undefined> {
  const body = await objectBody(s3, bucket, key);
  return body === undefined ? undefined : (JSON.parse(await body.transformToString()) as T);
}

async function writeObject(
  s3: S3Client,
  bucket: string,
  key: string,
  body: string | Uint8Array,
  type: string,
) {
  await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: type }));
}

const writeJson = (s3: S3Client, bucket: string, key: string, value: unknown) =>
  writeObject(s3, bucket, key, JSON.stringify(value), 'application/json');

/** The bytes of the file's version, whole or one part. */
async function body(
  s3: S3Client,
  file: { bucket: string; key: string; versionId: string },
  part?: Part,
): Promise<AsyncIterable<Uint8Array>> {
  const object = await s3.send(
    new GetObjectCommand({
      Bucket: file.bucket,
      Key: file.key,
      ...version(file.versionId),
      ...(part ? { Range: `bytes=${part.start}-${part.end - 1}` } : {}),
    }),
  );
  return object.Body as AsyncIterable<Uint8Array>;
}

const uploader = (input: Partial<ExecutionInput>): Uploader => ({
  requester: input.requester ?? null,
  sourceIp: input.sourceIp ?? null,
  s3RequestId: input.s3RequestId ?? null,
});

export interface PlanResult {
  importId: string;
  sha256: string;
  parts: number;
  manifestKey: string;
  startedAt: string;
  alreadyImported?: true;
}

/** Plan: the file's SHA-256 and parts (the manifest the maps read); "import started". */
export async function plan(deps: StepDeps, input: ExecutionInput): Promise<PlanResult> {
  const importId = importIdOf(input.key, input.versionId);
  const startedAt = new Date().toISOString();
  const done = await readJson<ImportReport>(deps.s3, input.bucket, reportKey(importId));
  if (done?.outcome === 'imported')
    return {
      importId,
      sha256: done.sha256 ?? '',
      parts: 0,
      manifestKey: manifestKey(importId),
      startedAt: done.startedAt ?? startedAt,
      alreadyImported: true,
    };
  const { sha256, parts } = await planParts(
    await body(deps.s3, input),
    deps.partBytes ?? DEFAULT_PART_BYTES,
  );
  await writeJson(deps.s3, input.bucket, manifestKey(importId), parts);
  deps.audit(
    importAuditEvent(importId, {
      kind: 'import-started',
      key: input.key,
      versionId: input.versionId,
      sha256,
      parts: parts.length,
      ...uploader(input),
    }),
  );
  return { importId, sha256, parts: parts.length, manifestKey: manifestKey(importId), startedAt };
}

/** A Map item: one part of one import. */
export interface PartInput {
  importId: string;
  bucket: string;
  key: string;
  versionId: string;
  part: Part;
}

const parserOf = (deps: StepDeps) => createLineParser(createTimeCodec(deps.displayTimeZone));

export interface CheckResult {
  index: number;
  problems: number;
  records: number;
}

/**
 * CheckPart (first pass): the part's problems and record ids, kept for Verify, and its records
 * as checked, kept for WritePart (a part with problems is never written: none are kept).
 */
export async function checkPartStep(deps: StepDeps, input: PartInput): Promise<CheckResult> {
  const { part, importId, bucket } = input;
  const lines = linesOf(await body(deps.s3, input, part), part.firstLine);
  const stored = storedRecordsWriter();
  const checked = await checkPart(part.index, lines, parserOf(deps), stored.add);
  await Promise.all([
    writeJson(deps.s3, bucket, checkedKey(importId, part.index), checked),
    checked.problemCount === 0 &&
      writeObject(
        deps.s3,
        bucket,
        recordsKey(importId, part.index),
        stored.bytes(),
        'application/x-ndjson',
      ),
  ]);
  return { index: part.index, problems: checked.problemCount, records: checked.records.length };
}

export interface VerifyInput {
  importId: string;
  bucket: string;
  parts: number;
}

export interface VerifyResult {
  valid: boolean;
  problems: number;
  records: number;
}

/** Verify: every part's findings merged, the same record in two parts included. */
export async function verify(deps: StepDeps, input: VerifyInput): Promise<VerifyResult> {
  // In file order, a few read ahead: one part's records in memory at a time, beside the ids.
  const read = (index: number) => {
    const part = readJson<CheckedPart>(deps.s3, input.bucket, checkedKey(input.importId, index));
    part.catch(() => {}); // a read ahead that fails is thrown when its turn comes
    return part;
  };
  const ahead: Promise<CheckedPart | undefined>[] = [];
  const verifier = partVerifier();
  for (let index = 0; index < input.parts; index += 1) {
    for (let i = ahead.length; i < VERIFY_READ_AHEAD && index + i < input.parts; i += 1)
      ahead.push(read(index + i));
    const part = await ahead.shift()!;
    if (!part) throw new Error(`part ${index} of import ${input.importId} was not checked`);
    verifier.add(part);
  }
  const verdict = verifier.verdict();
  await writeJson(deps.s3, input.bucket, problemsKey(input.importId), verdict);
  return {
    valid: verdict.problemCount === 0,
    problems: verdict.problemCount,
    records: verdict.records,
  };
}

export type PartCounts = ImportSummary & { index: number };

/** The records CheckPart kept of a part. */
async function checkedRecords(s3: S3Client, { bucket, importId, part }: PartInput) {
  const body = await objectBody(s3, bucket, recordsKey(importId, part.index));
  if (body === undefined)
    throw new Error(`part ${part.index} of import ${importId} was not checked`);
  return storedRecords(body as AsyncIterable<Uint8Array>);
}

/**
 * WritePart (second pass): the part's records, as CheckPart checked them, written as the direct
 * import writes them, one audit event each. Safe to repeat: a part already written is not
 * written again, and one stopped half-way is written again whole (import/writer.ts keeps every
 * read whole meanwhile).
 */
export async function writePart(deps: StepDeps, input: PartInput): Promise<PartCounts> {
  const { part, importId } = input;
  const key = writtenKey(importId, part.index);
  const done = await readJson<PartCounts>(deps.s3, input.bucket, key);
  if (done) return done;
  const summary = await writeRecords(await checkedRecords(deps.s3, input), {
    client: deps.client,
    tableName: deps.tableName,
    concurrency: deps.writeConcurrency,
    slots: deps.writeSlots,
    onWritten: (group) =>
      deps.audit(
        ...group.map(({ write }) =>
          importAuditEvent(importId, {
            kind: 'record',
            entity: write.entity.name,
            recordId: write.id.toString(),
            action: write.kind,
            line: write.lineNo,
          }),
        ),
      ),
  });
  const counts = { index: part.index, ...summary };
  await writeJson(deps.s3, input.bucket, key, counts);
  return counts;
}

export interface ReportInput {
  /** Missing when Plan failed: then it is made from the key and version, as Plan makes it. */
  importId?: string;
  bucket: string;
  key: string;
  versionId: string;
  sha256?: string;
  startedAt?: string;
  outcome: Outcome;
  /** A Catch's `$.error`: `{ Error, Cause }`. */
  error?: { Error?: string; Cause?: string };
  /** The execution's state (the execution input, and `plan` once Plan ran). */
  input?: Partial<ExecutionInput> & { plan?: Partial<PlanResult> };
}

/**
 * What stopped a failed import, short: the error's name and its message (the steps' errors name
 * lines, records and parts, never a record's fields).
 */
function failure(error: ReportInput['error']): string {
  let message: string;
  try {
    message = (JSON.parse(error?.Cause ?? '') as { errorMessage?: string }).errorMessage ?? '';
  } catch {
    message = error?.Cause ?? '';
  }
  return [error?.Error ?? 'Error', message.slice(0, 500)].filter(Boolean).join(': ');
}

export interface ReportResult {
  importId: string;
  outcome: Outcome;
  reportKey: string;
}

/** Report: the counts summed, `reports/<import id>.json` written; "import ended". */
export async function report(deps: StepDeps, input: ReportInput): Promise<ReportResult> {
  const { bucket } = input;
  const importId = input.importId ?? importIdOf(input.key, input.versionId);
  const counts = emptySummary();
  let verdict: Verdict | undefined;
  let outcome = input.outcome;
  let error = outcome === 'failed' ? failure(input.error) : undefined;
  if (outcome === 'rejected') {
    verdict = await readJson<Verdict>(deps.s3, bucket, problemsKey(importId));
  } else if (outcome === 'imported') {
    const parts = (await readJson<Part[]>(deps.s3, bucket, manifestKey(importId))) ?? [];
    for (const part of parts) {
      const written = await readJson<PartCounts>(deps.s3, bucket, writtenKey(importId, part.index));
      if (!written) {
        outcome = 'failed';
        error = `part ${part.index} was not written`;
        break;
      }
      for (const name of Object.keys(counts) as (keyof ImportSummary)[])
        counts[name] += written[name];
    }
  }
  const result: ImportReport = {
    importId,
    outcome,
    key: input.key,
    versionId: input.versionId,
    sha256: input.sha256 ?? input.input?.plan?.sha256 ?? null,
    startedAt: input.startedAt ?? input.input?.plan?.startedAt ?? null,
    endedAt: new Date().toISOString(),
    counts,
    problems: verdict?.problems ?? [],
    problemCount: verdict?.problemCount ?? 0,
    ...(error === undefined ? {} : { error }),
  };
  await writeJson(deps.s3, bucket, reportKey(importId), result);
  deps.audit(
    importAuditEvent(importId, {
      kind: 'import-ended',
      key: input.key,
      versionId: input.versionId,
      sha256: result.sha256,
      outcome,
      counts,
      problems: result.problemCount,
      ...uploader(input.input ?? {}),
    }),
  );
  return { importId, outcome, reportKey: reportKey(importId) };
}
