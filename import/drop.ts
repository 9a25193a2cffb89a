/**
 * Putting a file into an import drop (SPEC 9), local or a stage's, as `npm run import` does, and
 * how far an import has got, for its progress line.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import { basename } from 'node:path';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { PREFIX, type ExecutionInput } from './steps';

export interface Progress {
  phase: 'planning' | 'checking' | 'writing' | 'reporting';
  parts: number;
  partsDone: number;
  records: number;
}

/** A key under `incoming/` no other drop uses: an upload is a new import even where the bucket keeps no versions (the local drop). */
export function incomingKey(file: string): string {
  const stamp = new Date().toISOString().replace(/[-:.]/g, '');
  // Only characters that URL encoding leaves alone: the key reads the same in S3's events,
  // whether or not a channel encodes it.
  const name = basename(file).replace(/[^A-Za-z0-9._-]/g, '_');
  return `${PREFIX.incoming}${stamp}-${randomBytes(4).toString('hex')}-${name}`;
}

/** Puts `file` into the drop: the execution input S3's event would carry. */
export async function putIntoDrop(
  s3: S3Client,
  bucket: string,
  file: string,
  key: string,
): Promise<ExecutionInput> {
  const size = statSync(file).size;
  const put = await s3.send(
    new PutObjectCommand({
      Bucket: bucket,
      Key: key,
      Body: createReadStream(file),
      ContentLength: size,
    }),
  );
  return {
    bucket,
    key,
    versionId: put.VersionId ?? 'null',
    size,
    requester: `local:${userInfo().username}`,
    sourceIp: '127.0.0.1',
    s3RequestId: put.$metadata.requestId ?? '',
    eventTime: new Date().toISOString(),
  };
}
