/** An upload into the local import drop, as S3's event would tell it in a stage (SPEC 9). */
import { HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { putIntoDrop, type UploadOptions } from './drop.ts';
import type { ExecutionInput } from '../../import/steps/step.ts';

/**
 * Puts `file` into the local drop (commands/import/drop.ts putIntoDrop) and returns the execution input as
 * S3's event would carry it, which fixes the import's version (core/import-version.ts): the local
 * S3's time of the object (whole seconds, as in AWS), never this machine's clock, and for the
 * sequencer S3 adds, the upload's end in milliseconds.
 */
export async function putIntoLocalDrop(
  s3: S3Client,
  bucket: string,
  file: string,
  key: string,
  options?: UploadOptions,
): Promise<ExecutionInput> {
  const input = await putIntoDrop(s3, bucket, file, key, options);
  const sequencer = Date.now().toString(16);
  const { LastModified } = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
  if (LastModified === undefined) throw new Error('the local S3 gave no time for the upload');
  return { ...input, eventTime: LastModified.toISOString(), sequencer };
}
