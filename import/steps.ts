/**
 * The import drop's steps (SPEC 9, docs/import.md): Plan, CheckPart, Verify, WritePart and
 * Report, each what one state of the workflow runs (functions/import-*.ts in AWS, the local
 * runner in-process). Between steps the state is in the import bucket under `work/<import id>/`,
 * so that each step can be retried alone; the report is `reports/<import id>.json`.
 */
import { createHash } from 'node:crypto';
import pLimit from 'p-limit';
import {
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type GetObjectCommandInput,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createTimeCodec } from '../core/times';
import { importAuditEvent, type ImportAuditSink, type Uploader } from './audit';
import {
  count,
  emptySummary,
  problemText,
  writeRecords,
  type ImportSummary,
  type Parsed,
  type WriteSlots,
} from './importer';
import { fileRefsOf, missingFiles, type FileRef } from './file-check';
import { linesOf, MAX_LINE_BYTES } from './lines';
import {
  DEFAULT_PART_BYTES,
  MAX_LISTED_PROBLEMS,
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
  /**
   * Files the records name that the files bucket lacks: imported all the same, their links answer
   * 404 until the file is put (./file-check.ts). The first 1,000; `warningCount` is exact.
   */
  warnings: string[];
  warningCount: number;
  /**
   * Files the replaced or deleted records named and no longer do, for the operator to remove
   * (docs/security.md): the import never deletes a file, which another record may name (one
   * the same part still names is not listed). The first 1,000 in file order, of every part, one
   * stopped half-way as far as it saved; `filesLeftCount` is their exact count.
   */
  filesLeft: string[];
  filesLeftCount: number;
  /** A failed import: what stopped it (never record data: see the Report step). */
  error?: string;
  /**
   * The file's parts and those written whole (their indexes). In a failed import `counts` also
   * holds what the other parts wrote before they stopped: every record counted is in the table.
   */
  parts?: { total: number; written: number[] };
}

/**
 * Each step's time limit, in seconds: its function's timeout (lib/import-drop.ts) and its Task's
 * `TimeoutSeconds` (stage/import-workflow.ts), one figure for both, so that the workflow never
 * waits on a step longer than Lambda lets it run, and the local runner cuts it at the same
 * time. AWS Lambda's own limit is 900 s.
 */
export const STEP_TIMEOUT_SECONDS = {
  Plan: 900,
  CheckPart: 900,
  Verify: 900,
  WritePart: 900,
  Report: 300,
} as const;

/**
 * A whole import's limit: the 18-million-record backfill takes about 1 h 45 min with no
 * settings, 30 minutes with a warmed table (docs/performance.md), so 12 hours only stops one
 * that hangs, and the stage's timed-out alarm (lib/import-drop.ts) says so; a timed-out import
 * writes no report.
 */
export const IMPORT_TIMEOUT_SECONDS = 12 * 60 * 60;

/**
 * What WritePart keeps of its time limit: it starts no group after that, saves its counts and
 * ends (ImportStopped), rather than being cut by Lambda mid-write with nothing said.
 */
export const WRITE_STOP_MARGIN_MS = 30_000;

/** How often a writing part saves its counts and looks for the import's cancel marker. */
export const WRITE_SAVE_MS = 5_000;

/** How long a failed import's Report waits for parts still writing to stop and say how far. */
export const CANCEL_GRACE_MS = 60_000;

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
  /** The files bucket: records naming a key it lacks are warned of (./file-check.ts). */
  filesBucket?: string;
  audit: ImportAuditSink;
  partBytes?: number;
  /** Groups a part writes at once; default the direct import's (import/importer.ts). */
  writeConcurrency?: number;
  /** Slots every part this process writes shares (the local drop's; see WriteSlots). */
  writeSlots?: WriteSlots;
  /** Told the records (and deletes) of each group as it is written: the local progress line. */
  onRecordsWritten?: (records: number) => void;
}

export const PREFIX = { incoming: 'incoming/', reports: 'reports/', work: 'work/' } as const;
export const reportKey = (importId: string) => `${PREFIX.reports}${importId}.json`;
/** Everything the steps keep of one import while it runs. */
export const workFolder = (importId: string) => `${PREFIX.work}${importId}/`;
const workKey = (importId: string, name: string) => `${workFolder(importId)}${name}`;
export const manifestKey = (importId: string) => workKey(importId, 'manifest.json');
const checkedKey = (importId: string, index: number) => workKey(importId, `checked/${index}.json`);
const recordsKey = (importId: string, index: number) => workKey(importId, `records/${index}.jsonl`);
const writtenKey = (importId: string, index: number) => workKey(importId, `written/${index}.json`);
/** A part being written: its counts so far, saved as it goes, `final` once it has stopped. */
export const writingKey = (importId: string, index: number) =>
  workKey(importId, `writing/${index}.json`);
/** Put by a failed import's Report: every part still writing stops at its next save. */
const cancelKey = (importId: string) => workKey(importId, 'cancelled');
export const workPrefix = (importId: string, name: 'written' | 'writing' | 'checked') =>
  workKey(importId, `${name}/`);
export const problemsKey = (importId: string) => workKey(importId, 'problems.json');

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

/**
 * The key of the object an S3 event names. S3 documents its notifications' keys as URL-encoded
 * (a space as `+`); EventBridge has been seen to deliver them both ways. The key as delivered is
 * tried first, then its decoded forms; the version id, unique to one object, tells them apart.
 */
export async function objectKeyOf(
  s3: S3Client,
  bucket: string,
  key: string,
  versionId: string,
): Promise<string> {
  const decoded = (text: string) => {
    try {
      return decodeURIComponent(text);
    } catch {
      return undefined;
    }
  };
  const candidates = [key, decoded(key.replace(/\+/g, ' ')), decoded(key)];
  const tried = new Set<string>();
  for (const candidate of candidates) {
    if (candidate === undefined || tried.has(candidate)) continue;
    tried.add(candidate);
    try {
      await s3.send(
        new HeadObjectCommand({ Bucket: bucket, Key: candidate, ...version(versionId) }),
      );
      return candidate;
    } catch (error) {
      const name = (error as { name?: string }).name;
      if (name !== 'NotFound' && name !== 'NoSuchKey' && name !== 'NoSuchVersion') throw error;
    }
  }
  throw new Error(
    `no version ${versionId} of ${JSON.stringify(key)} in ${bucket} (read as delivered and URL-decoded)`,
  );
}

const uploader = (input: Partial<ExecutionInput>): Uploader => ({
  requester: input.requester ?? null,
  sourceIp: input.sourceIp ?? null,
  s3RequestId: input.s3RequestId ?? null,
});

export interface PlanResult {
  importId: string;
  /** The object's key as S3 stores it (the event's, decoded where it came URL-encoded). */
  key: string;
  sha256: string;
  parts: number;
  manifestKey: string;
  startedAt: string;
  alreadyImported?: true;
}

/** Plan: the file's SHA-256 and parts (the manifest the maps read); "import started". */
export async function plan(deps: StepDeps, event: ExecutionInput): Promise<PlanResult> {
  const key = await objectKeyOf(deps.s3, event.bucket, event.key, event.versionId);
  const input = { ...event, key };
  const importId = importIdOf(key, input.versionId);
  const startedAt = new Date().toISOString();
  const done = await readJson<ImportReport>(deps.s3, input.bucket, reportKey(importId));
  if (done?.outcome === 'imported')
    return {
      importId,
      key,
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
  return {
    importId,
    key,
    sha256,
    parts: parts.length,
    manifestKey: manifestKey(importId),
    startedAt,
  };
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
  // The part's place in the file: its lines' numbers, and a bad byte's offset, are the file's.
  const lines = linesOf(
    await body(deps.s3, input, part),
    part.firstLine,
    MAX_LINE_BYTES,
    part.start,
  );
  const stored = storedRecordsWriter();
  const files: FileRef[] = [];
  const checked = await checkPart(part.index, lines, parserOf(deps), (record) => {
    stored.add(record);
    files.push(...fileRefsOf(record));
  });
  // Only for a part that will be written: a rejected file's report lists its problems.
  if (deps.filesBucket !== undefined && checked.problemCount === 0) {
    const missing = await missingFiles(deps.s3, deps.filesBucket, files);
    checked.missingFiles = missing.slice(0, MAX_LISTED_PROBLEMS);
    checked.missingFileCount = missing.length;
  }
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
/**
 * A part written whole, as work/<id>/written/<i>.json keeps it: its counts, and every file its
 * records named before this import and no longer do. Kept whole (at most one or two a record),
 * merged over the part's attempts: a retried part finds its records already written by the
 * earlier attempt, so their files are known only from what that attempt saved.
 */
type WrittenPart = PartCounts & { filesLeft?: FileLeft[] };
/** A file left: the record's line, the key, the report's words. */
type FileLeft = [lineNo: number, key: string, text: string];

/** The records CheckPart kept of a part. */
async function checkedRecords(s3: S3Client, { bucket, importId, part }: PartInput) {
  const body = await objectBody(s3, bucket, recordsKey(importId, part.index));
  if (body === undefined)
    throw new Error(`part ${part.index} of import ${importId} was not checked`);
  return storedRecords(body as AsyncIterable<Uint8Array>);
}

/** Whether the bucket holds `key` (its latest version). */
async function exists(s3: S3Client, bucket: string, key: string): Promise<boolean> {
  try {
    await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return true;
  } catch (error) {
    if ((error as { name?: string }).name === 'NotFound') return false;
    throw error;
  }
}

/** The keys under `prefix`, every page. */
export async function keysUnder(
  s3: S3Client,
  bucket: string,
  prefix: string,
  /** Only keys last modified before this time (ms); every key when omitted. */
  before = Infinity,
): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
    );
    for (const { Key, LastModified } of page.Contents ?? [])
      if (Key && (LastModified?.getTime() ?? 0) < before) keys.push(Key);
    token = page.NextContinuationToken;
  } while (token);
  return keys;
}

/** A part's counts while it writes, and once it stopped (`final`). */
export type WritingCounts = PartCounts & { final: boolean; filesLeft?: FileLeft[] };

const total = (c: ImportSummary) => c.records + c.deletes;

/**
 * WritePart (second pass): the part's records, as CheckPart checked them, written as the direct
 * import writes them, one audit event each. Safe to repeat: a part already written is not
 * written again, and one stopped half-way is written again whole (import/writer.ts keeps every
 * read whole meanwhile).
 *
 * While it writes it saves its counts every WRITE_SAVE_MS under `writing/`, and stops (no group
 * starts after; those in flight finish) when its time limit is WRITE_STOP_MARGIN_MS away, when
 * the import's Report has cancelled it, or when `signal` aborts (the local runner's cut); then
 * it saves how far it got, and a failed import's report counts that (SPEC 9).
 */
export async function writePart(
  deps: StepDeps,
  input: PartInput,
  context?: StepContext,
  signal?: AbortSignal,
): Promise<PartCounts> {
  const { part, importId, bucket } = input;
  const index = part.index;
  const done = await readJson<WrittenPart>(deps.s3, bucket, writtenKey(importId, index));
  if (done) return countsOf(done);
  if (await exists(deps.s3, bucket, cancelKey(importId)))
    throw new ImportStopped(`part ${index} was not written: its import had already failed`);
  // What an earlier attempt wrote stays written: the counts never go below it.
  const earlier = await readJson<WritingCounts>(deps.s3, bucket, writingKey(importId, index));
  const counts = emptySummary();
  const stop = new AbortController();
  const onAbort = () => stop.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  if (signal?.aborted) onAbort();
  const limit =
    context &&
    setTimeout(
      () =>
        stop.abort(
          new ImportStopped(
            `part ${index} stopped ${WRITE_STOP_MARGIN_MS / 1000} s before its time limit`,
          ),
        ),
      Math.max(0, context.getRemainingTimeInMillis() - WRITE_STOP_MARGIN_MS),
    );
  // Files left, by line and field, this attempt's and the earlier attempts' (never a file of a
  // key some record of this part still names).
  const left = new Map<string, FileLeft>(
    (earlier?.filesLeft ?? []).map((entry) => [entry[2], entry]),
  );
  const named = new Set<string>();
  const filesLeft = (): FileLeft[] =>
    [...left.values()].filter(([, key]) => !named.has(key)).sort((a, b) => a[0] - b[0]);
  const save = (final: boolean) => {
    const best = earlier && total(earlier) > total(counts) ? earlier : counts;
    const saved: WritingCounts = { ...countsOf(best), index, final, filesLeft: filesLeft() };
    return writeJson(deps.s3, bucket, writingKey(importId, index), saved);
  };
  // Saved at once: a failed import's Report then knows this part is writing and waits for it.
  let saving: Promise<void> = save(false).catch(() => {});
  const ticker = setInterval(() => {
    saving = saving
      .then(async () => {
        await save(false);
        if (await exists(deps.s3, bucket, cancelKey(importId)))
          stop.abort(new ImportStopped(`part ${index} stopped: its import failed elsewhere`));
      })
      .catch(() => {}); // a save that fails is made again next time, or by the final one
  }, WRITE_SAVE_MS);
  let failure: unknown;
  let summary: ImportSummary | undefined;
  try {
    summary = await writeRecords(await checkedRecords(deps.s3, input), {
      client: deps.client,
      tableName: deps.tableName,
      concurrency: deps.writeConcurrency,
      slots: deps.writeSlots,
      signal: stop.signal,
      onWritten: (group) => {
        for (const { write, written } of group) {
          count(counts, write, written);
          if (write.kind === 'put')
            for (const field of write.entity.fileFields) {
              const key = write.record[field];
              if (typeof key === 'string') named.add(key);
            }
          for (const [field, key] of written.filesLeft) {
            const text = fileLeftText(write, field, key);
            left.set(text, [write.lineNo, key, text]);
          }
        }
        deps.onRecordsWritten?.(group.length);
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
        );
      },
    });
  } catch (error) {
    failure = error;
  } finally {
    clearInterval(ticker);
    clearTimeout(limit);
    signal?.removeEventListener('abort', onAbort);
    await saving;
  }
  if (summary === undefined) {
    // Best effort: when S3 refuses this too, the error below still says what stopped the part.
    await save(true).catch(() => {});
    throw failure;
  }
  const result: PartCounts = { index, ...summary };
  const kept: WrittenPart = { ...result, filesLeft: filesLeft() };
  await writeJson(deps.s3, bucket, writtenKey(importId, index), kept);
  // The counts alone: the Map's results stay small whatever the records named.
  return result;
}

/** A part's counts, without what else its written/ and writing/ files keep. */
function countsOf(part: ImportSummary & { index?: number }): PartCounts {
  const { records, transactions, customers, deletes, notFound } = part;
  return { index: part.index ?? 0, records, transactions, customers, deletes, notFound };
}

/** A file a record named before this import and no longer names, for the report. */
const fileLeftText = (write: Parsed, field: string, key: string) =>
  problemText(
    write.lineNo,
    field,
    `${JSON.stringify(key)} is no longer named by ${write.entity.name} ${write.id} ` +
      `(${write.kind === 'delete' ? 'deleted' : 'replaced'}): remove it from the files bucket unless another record names it`,
  );

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

/** Parts' counts read at once, at most this many reads in flight. */
const TALLY_READS = 16;

/**
 * What the parts of an import wrote: those written whole (`written/`) and, when `stopped`, what
 * the others wrote before they stopped (`writing/`), after waiting up to CANCEL_GRACE_MS for
 * those still writing to save their final counts.
 */
async function tally(
  deps: StepDeps,
  bucket: string,
  importId: string,
  stopped: boolean,
): Promise<{
  counts: ImportSummary;
  written: number[];
  filesLeft: string[];
  filesLeftCount: number;
}> {
  const indexOf = (key: string) => Number(key.slice(key.lastIndexOf('/') + 1, -'.json'.length));
  const read = pLimit(TALLY_READS);
  const readAll = <T>(keys: string[]) =>
    Promise.all(keys.map((key) => read(() => readJson<T>(deps.s3, bucket, key))));
  const written = new Map<number, WrittenPart>();
  const partial: WritingCounts[] = [];
  const note = (found: (WrittenPart | undefined)[]) => {
    for (const c of found) if (c) written.set(c.index, c);
  };
  note(
    await readAll<WrittenPart>(await keysUnder(deps.s3, bucket, workPrefix(importId, 'written'))),
  );
  if (stopped) {
    const deadline = Date.now() + CANCEL_GRACE_MS;
    let pending = (await keysUnder(deps.s3, bucket, workPrefix(importId, 'writing')))
      .map(indexOf)
      .filter((index) => !written.has(index));
    for (;;) {
      // A part may have ended whole since it was last looked at: its written/ counts are whole.
      note(await readAll<WrittenPart>(pending.map((index) => writtenKey(importId, index))));
      pending = pending.filter((index) => !written.has(index));
      const found = await readAll<WritingCounts>(pending.map((i) => writingKey(importId, i)));
      const over = Date.now() >= deadline;
      for (const c of found) if (c && (c.final || over)) partial.push(c);
      pending = found.filter((c) => c && !c.final).map((c) => c!.index);
      if (pending.length === 0 || over) break;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
  const counts = emptySummary();
  for (const part of [...written.values(), ...partial])
    for (const name of Object.keys(counts) as (keyof ImportSummary)[]) counts[name] += part[name];
  const indexes = [...written.keys()].sort((a, b) => a - b);
  // Every part's, a part stopped half-way's too (what it saved), in file order.
  const left = [...written.values(), ...partial]
    .flatMap((part) => part.filesLeft ?? [])
    .sort((a, b) => a[0] - b[0]);
  return {
    counts,
    written: indexes,
    filesLeft: left.slice(0, MAX_LISTED_PROBLEMS).map(([, , text]) => text),
    filesLeftCount: left.length,
  };
}

/**
 * Report: the counts summed, `reports/<import id>.json` written; "import ended". A failed import
 * first cancels its parts still writing (they stop at their next save), then counts what every
 * part wrote, finished or not.
 */
export async function report(deps: StepDeps, input: ReportInput): Promise<ReportResult> {
  const { bucket } = input;
  const plan = input.input?.plan;
  const importId = input.importId ?? plan?.importId ?? importIdOf(input.key, input.versionId);
  const key = plan?.key ?? input.key;
  let counts = emptySummary();
  let outcome = input.outcome;
  let error = outcome === 'failed' ? failure(input.error) : undefined;
  let parts: ImportReport['parts'];
  let filesLeft: Pick<ImportReport, 'filesLeft' | 'filesLeftCount'> = {
    filesLeft: [],
    filesLeftCount: 0,
  };
  const planned = plan?.parts !== undefined && plan.alreadyImported === undefined;
  // Verify's findings: a rejected file's problems, a valid one's warnings (none before Verify).
  const verdict =
    outcome === 'rejected' || planned
      ? await readJson<Verdict>(deps.s3, bucket, problemsKey(importId))
      : undefined;
  if (outcome !== 'rejected' && plan?.parts !== undefined && planned) {
    if (outcome === 'failed') await writeJson(deps.s3, bucket, cancelKey(importId), {});
    const found = await tally(deps, bucket, importId, outcome === 'failed');
    counts = found.counts;
    parts = { total: plan.parts, written: found.written };
    filesLeft = { filesLeft: found.filesLeft, filesLeftCount: found.filesLeftCount };
    const missing = found.written.length < plan.parts;
    if (outcome === 'imported' && missing) {
      outcome = 'failed';
      const set = new Set(found.written);
      const first = Array.from({ length: plan.parts }, (_, i) => i).find((i) => !set.has(i));
      error = `part ${first} was not written`;
    }
  }
  const result: ImportReport = {
    importId,
    outcome,
    key,
    versionId: input.versionId,
    sha256: input.sha256 ?? plan?.sha256 ?? null,
    startedAt: input.startedAt ?? plan?.startedAt ?? null,
    endedAt: new Date().toISOString(),
    counts,
    problems: verdict?.problems ?? [],
    problemCount: verdict?.problemCount ?? 0,
    warnings: verdict?.warnings ?? [],
    warningCount: verdict?.warningCount ?? 0,
    ...filesLeft,
    ...(error === undefined ? {} : { error }),
    ...(parts === undefined ? {} : { parts }),
  };
  await writeJson(deps.s3, bucket, reportKey(importId), result);
  deps.audit(
    importAuditEvent(importId, {
      kind: 'import-ended',
      key,
      versionId: input.versionId,
      sha256: result.sha256,
      outcome,
      counts,
      problems: result.problemCount,
      ...(parts === undefined ? {} : { parts }),
      ...uploader(input.input ?? {}),
    }),
  );
  return { importId, outcome, reportKey: reportKey(importId) };
}
