/**
 * The import bucket as the steps use it: uploads under `incoming/`, reports under `reports/`, and
 * everything one import keeps while it runs under `work/<import id>/`, one object per step's
 * result, so that a retried step finds what the others left.
 */
import { createHash } from 'node:crypto';
import {
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type GetObjectCommandInput,
  type S3Client,
} from '@aws-sdk/client-s3';
import { emptySummary, type ImportSummary } from '../summary.ts';
import type { Part } from '../parts.ts';

export const PREFIX = { incoming: 'incoming/', reports: 'reports/', work: 'work/' } as const;
export const reportKey = (importId: string) => `${PREFIX.reports}${importId}.json`;
/** Everything the steps keep of one import while it runs. */
export const workFolder = (importId: string) => `${PREFIX.work}${importId}/`;
const workKey = (importId: string, name: string) => `${workFolder(importId)}${name}`;
export const manifestKey = (importId: string) => workKey(importId, 'manifest.json');
export const checkedKey = (importId: string, index: number) =>
  workKey(importId, `checked/${index}.json`);
export const recordsKey = (importId: string, index: number) =>
  workKey(importId, `records/${index}.jsonl`);
export const writtenKey = (importId: string, index: number) =>
  workKey(importId, `written/${index}.json`);
/** A part being written: its counts so far, saved as it goes, `final` once it has stopped. */
export const writingKey = (importId: string, index: number) =>
  workKey(importId, `writing/${index}.json`);
/**
 * One execution's run of the workflow: its ARN (`$$.Execution.Id`) and how many times it was
 * redriven (`$$.Execution.RedriveCount`), as the workflow passes them to the steps.
 */
export interface ExecutionAttempt {
  execution?: string;
  redriveCount?: number;
}
/** An attempt as a key's last segment: the execution's ARN hashed, and its redrive count. */
const attemptName = ({ execution, redriveCount }: ExecutionAttempt) =>
  `${createHash('sha256')
    .update(execution ?? '')
    .digest('hex')
    .slice(0, 32)}-${redriveCount ?? 0}`;
/**
 * Put by a failed import's Report: every part of the same attempt (execution and redrive) still
 * writing stops at its next save. Another execution's parts, or a redrive's, are not stopped.
 */
export const cancelKey = (importId: string, attempt: ExecutionAttempt) =>
  workKey(importId, `cancelled/${attemptName(attempt)}`);
/** Who imports the upload: the first execution whose Plan put it (./plan.ts claimImport). */
export const claimKey = (importId: string) => workKey(importId, 'claim.json');
export const workPrefix = (importId: string, name: 'written' | 'writing' | 'checked') =>
  workKey(importId, `${name}/`);
export const problemsKey = (importId: string) => workKey(importId, 'problems.json');

/** One import per object version: a repeated event or a re-run is the same import. */
export function importIdOf(key: string, versionId: string): string {
  return createHash('sha256').update(`${key}\n${versionId}`).digest('hex').slice(0, 32);
}

/**
 * A command's VersionId, the S3 object version (not the import's version: core/import-version.ts).
 * An unversioned object (the local drop) has the version id `null`, as S3 says it.
 */
export const objectVersion = (versionId: string): Pick<GetObjectCommandInput, 'VersionId'> =>
  versionId && versionId !== 'null' ? { VersionId: versionId } : {};

/** An object of the bucket, its body; undefined when there is none. */
export async function objectBody(s3: S3Client, bucket: string, key: string) {
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

export async function writeObject(
  s3: S3Client,
  bucket: string,
  key: string,
  body: string | Uint8Array,
  type: string,
) {
  await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: type }));
}

export const writeJson = (s3: S3Client, bucket: string, key: string, value: unknown) =>
  writeObject(s3, bucket, key, JSON.stringify(value), 'application/json');

/** The claim of an upload's import: the execution that holds it, since when. */
export interface Claim {
  execution: string;
  claimedAt: string;
}

const CLAIM_TRIES = 5;

/**
 * The import of an upload claimed for `execution` with S3's conditional write (`If-None-Match: *`):
 * the first execution's put lands, every other's is refused (412 PreconditionFailed). Resolves with
 * the execution that holds the claim: this one (its put landed, now or on an earlier try of the
 * same execution, whose answer was lost), or the other. A 409 ConditionalRequestConflict (another
 * put of the same key in flight) is tried again, as S3 asks.
 */
export async function claimImport(
  s3: S3Client,
  bucket: string,
  importId: string,
  execution: string,
): Promise<string> {
  const claim: Claim = { execution, claimedAt: new Date().toISOString() };
  for (let tried = 1; ; tried += 1) {
    try {
      await s3.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: claimKey(importId),
          Body: JSON.stringify(claim),
          ContentType: 'application/json',
          IfNoneMatch: '*',
        }),
      );
      return execution;
    } catch (error) {
      const { name, $metadata } = error as {
        name?: string;
        $metadata?: { httpStatusCode?: number };
      };
      const status = $metadata?.httpStatusCode;
      if (status === 412 || name === 'PreconditionFailed') {
        const held = await claimHolder(s3, bucket, importId);
        if (held !== undefined) return held;
        // Taken, then gone (the work folder's lifecycle): claimed again.
      } else if (status !== 409 && name !== 'ConditionalRequestConflict') throw error;
      if (tried >= CLAIM_TRIES) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * tried));
    }
  }
}

/** The execution that holds the upload's claim; undefined when none does (yet). */
export async function claimHolder(
  s3: S3Client,
  bucket: string,
  importId: string,
): Promise<string | undefined> {
  return (await readJson<Claim>(s3, bucket, claimKey(importId)))?.execution;
}

/** The bytes of the file's version, whole or one part. */
export async function body(
  s3: S3Client,
  file: { bucket: string; key: string; versionId: string },
  part?: Part,
): Promise<AsyncIterable<Uint8Array>> {
  const object = await s3.send(
    new GetObjectCommand({
      Bucket: file.bucket,
      Key: file.key,
      ...objectVersion(file.versionId),
      ...(part ? { Range: `bytes=${part.start}-${part.end - 1}` } : {}),
    }),
  );
  return object.Body as AsyncIterable<Uint8Array>;
}

/** Whether the bucket holds `key` (its latest version), asked with a HEAD. */
export async function existsByHead(s3: S3Client, bucket: string, key: string): Promise<boolean> {
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

export type PartCounts = ImportSummary & { index: number };

/**
 * Files left a report lists (and records written again, or that may have been): the first this
 * many of each kind, in file order; `filesLeftCount` is exact whatever their number.
 */
export const MAX_LISTED_FILES_LEFT = 1000;

/**
 * A file left: the record's line, the key, the report's words. The key is one of NOT_KNOWN for a
 * record whose earlier files are not known: found already written by its import (writtenAgain),
 * or one this import may have written before a later file replaced it.
 */
export type FileLeft = [lineNo: number, key: string, text: string];

/** FileLeft's key for a record whose earlier files are not known, by the write's outcome. */
export const NOT_KNOWN = { again: '', maybe: '?' } as const;

/**
 * Files left as a part's objects and the report keep them: the first MAX_LISTED_FILES_LEFT of
 * each kind by line, and the exact count of files (never a file some record of its part still
 * names: WritePart leaves those out as it goes).
 */
export interface FilesLeft {
  filesLeft: FileLeft[];
  /** Absent from objects a part saved before it counted (their list was whole). */
  filesLeftCount?: number;
}

/** A file left, a record written again, or one that may have been (NOT_KNOWN). */
export const kindOf = ([, key]: FileLeft): 'file' | 'again' | 'maybe' =>
  key === NOT_KNOWN.again ? 'again' : key === NOT_KNOWN.maybe ? 'maybe' : 'file';

/**
 * Files left gathered in any order, kept bounded: each save of a writing part, and Report over
 * every part, holds at most a few times MAX_LISTED_FILES_LEFT of them whatever a part left (a
 * mass delete, a re-import that changes every key).
 */
export class FilesLeftList {
  private entries: FileLeft[] = [];
  private count = 0;
  /** Another list's (an earlier attempt's, a part's): lines apart from this one's. */
  merge({ filesLeft, filesLeftCount }: FilesLeft): void {
    for (const entry of filesLeft) this.entries.push(entry);
    this.count += filesLeftCount ?? filesLeft.filter((e) => kindOf(e) === 'file').length;
    this.bound();
  }
  add(entry: FileLeft): void {
    this.entries.push(entry);
    if (kindOf(entry) === 'file') this.count += 1;
    this.bound();
  }
  /** As an object keeps it: the first of each kind, in line order. */
  kept(): Required<FilesLeft> {
    this.trim();
    return { filesLeft: [...this.entries], filesLeftCount: this.count };
  }
  private bound(): void {
    if (this.entries.length > 6 * MAX_LISTED_FILES_LEFT) this.trim();
  }
  private trim(): void {
    const taken = { file: 0, again: 0, maybe: 0 };
    this.entries = this.entries
      .sort((a, b) => a[0] - b[0])
      .filter((entry) => (taken[kindOf(entry)] += 1) <= MAX_LISTED_FILES_LEFT);
  }
}

/**
 * A part written whole, as work/<id>/written/<i>.json keeps it: its counts, and the files its
 * records named before this import and no longer do, merged over the part's attempts: a retried
 * part skips the records an earlier attempt recorded, so their files are known only from what
 * that attempt saved.
 */
export type WrittenPart = PartCounts & FilesLeft;

/**
 * A part's counts while it writes, and once it stopped (`final`): with the places of the records
 * its attempts recorded (`recorded`, sorted ranges `[from, to)`) and how far any attempt may have
 * sent (`sent`).
 */
export type WritingCounts = PartCounts &
  FilesLeft & {
    final: boolean;
    recorded: [number, number][];
    sent: number;
  };

/** A part's counts, without what else its written/ and writing/ files keep. */
export function countsOf(part: Partial<ImportSummary> & { index?: number }): PartCounts {
  const counts = emptySummary();
  for (const name of Object.keys(counts) as (keyof ImportSummary)[]) counts[name] = part[name] ?? 0;
  return { index: part.index ?? 0, ...counts };
}
