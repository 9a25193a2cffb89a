/** Putting a file into an import drop (SPEC 9), local or a stage's, as `npm run import` does. */
import { randomBytes } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import { basename } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { PREFIX } from '../../import/steps/work-folder.ts';
import { type ExecutionInput } from '../../import/steps/step.ts';

/** A key under `incoming/` no other drop uses: an upload is a new import even where the bucket keeps no versions (the local drop). */
export function incomingKey(file: string): string {
  const stamp = new Date().toISOString().replace(/[-:.]/g, '');
  // Only characters that URL encoding leaves alone: the key reads the same in S3's events,
  // whether or not a channel encodes it.
  const name = basename(file).replace(/[^A-Za-z0-9._-]/g, '_');
  return `${PREFIX.incoming}${stamp}-${randomBytes(4).toString('hex')}-${name}`;
}

const MiB = 1024 * 1024;
/**
 * S3's limits on an upload (Amazon S3 User Guide, "Amazon S3 multipart upload limits"): one
 * PutObject takes at most 5 GiB, so a larger file must go up in parts; a multipart upload has at
 * most 10,000 parts, each 5 MiB to 5 GiB (the last may be smaller); an object is at most 5 TiB,
 * which 10,000 parts of 525 MiB hold.
 */
export const S3_MAX_PARTS = 10_000;
export const S3_MIN_PART_BYTES = 5 * MiB;
/** The least part this command uploads: a file up to this size goes up in one PutObject. */
export const MIN_UPLOAD_PART_BYTES = 8 * MiB;
/**
 * About what the upload may hold in memory, the parts in flight and the one being read: 4 parts
 * go up at once (lib-storage's default) while parts are at most 409 MiB (files up to 3.9 TiB),
 * a 5 TiB file's 525 MiB parts 2 at a time.
 */
const UPLOAD_BUFFER_BYTES = 2048 * MiB;
const UPLOAD_QUEUE = 4;

/**
 * The part size for a file of `size` bytes: at least MIN_UPLOAD_PART_BYTES, and large enough
 * that the file fits in S3_MAX_PARTS parts (whole MiB: 525 MiB for 5 TiB).
 */
export function uploadPartBytes(size: number): number {
  return Math.max(MIN_UPLOAD_PART_BYTES, Math.ceil(size / S3_MAX_PARTS / MiB) * MiB);
}

export interface UploadOptions {
  /**
   * Bytes per part of the upload (tests: S3_MIN_PART_BYTES, which lib-storage also refuses to go
   * below); uploadPartBytes(size) when not given.
   */
  uploadPartBytes?: number;
  /** Told the bytes S3 has acknowledged, after each part. */
  onProgress?: (sent: number, total: number) => void;
}

/**
 * Puts `file` into the drop, in parts when it is larger than one part (lib-storage's Upload:
 * PutObject for one part; CreateMultipartUpload, UploadPart, CompleteMultipartUpload, and
 * AbortMultipartUpload when a part fails), so any file S3 can hold goes up. Returns the execution
 * input S3's event would carry.
 */
export async function putIntoDrop(
  s3: S3Client,
  bucket: string,
  file: string,
  key: string,
  options: UploadOptions = {},
): Promise<ExecutionInput> {
  const size = statSync(file).size;
  const partSize = options.uploadPartBytes ?? uploadPartBytes(size);
  const body = createReadStream(file);
  const upload = new Upload({
    client: s3,
    params: { Bucket: bucket, Key: key, Body: body, ContentLength: size },
    partSize,
    queueSize: Math.max(1, Math.min(UPLOAD_QUEUE, Math.floor(UPLOAD_BUFFER_BYTES / partSize) - 1)),
  });
  const { onProgress } = options;
  if (onProgress)
    upload.on('httpUploadProgress', ({ loaded, total }) => onProgress(loaded ?? 0, total ?? size));
  let put;
  try {
    put = await upload.done();
  } finally {
    body.destroy();
  }
  return {
    bucket,
    key,
    versionId: put.VersionId ?? 'null',
    size,
    requester: `local:${userInfo().username}`,
    sourceIp: '127.0.0.1',
    s3RequestId: put.$metadata.requestId ?? '',
    // The command's clock: S3's own time is the event's (the local drop asks the local S3 for it).
    eventTime: new Date().toISOString(),
  };
}
