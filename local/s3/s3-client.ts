/**
 * A client for the local S3 (local/s3/s3-server.ts), apart from the server so that a command that only
 * talks to it (`npm run import`'s local drop) loads neither s3rver nor the server's code.
 */
import { join } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import { Sha256 } from '../../functions/sdk/sha256.ts';

/** s3rver's built-in account. */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;

/** A client for the local S3 (path-style, s3rver's credentials). */
export function s3Client(endpoint: string): S3Client {
  return new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: S3RVER_CREDENTIALS,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 1,
    // Request signing's hashes as the functions' clients make them (functions/sdk/sha256.ts).
    sha256: Sha256,
  });
}

/**
 * Where the local S3 (s3rver) keeps an object's bytes on disk: `<dir>/<bucket>/<key>._S3rver_object`,
 * the file as put. For a person to open what the local rig wrote (an import's report), here so
 * that the import command need not load the server.
 */
export function localObjectFile(s3DataDir: string, bucket: string, key: string): string {
  return join(s3DataDir, bucket, `${key}._S3rver_object`);
}
