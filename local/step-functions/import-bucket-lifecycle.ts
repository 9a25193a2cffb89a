/**
 * The stage's lifecycle of the import bucket (lib/import-drop.ts, core/retention.ts), kept by
 * the local drop itself because the local S3 has no lifecycle rules. Without it, every local
 * import left its upload and its work files, several times the file's size, for good
 * (docs/decisions/0013-every-store-has-a-bound.md).
 * - Work files go as soon as their import has its report. Nothing reads them after it, and they
 *   are copies of the file's records.
 * - Uploads go after IMPORT_RETENTION.filesDays and reports after reportsDays, as in a stage.
 *   Each local import sweeps them.
 */
import { DeleteObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { IMPORT_RETENTION } from '../../core/retention.ts';
import { DAY_MS } from '../../core/times.ts';
import { PREFIX, keysUnder, workFolder } from '../../import/steps/work-folder.ts';

/**
 * Deletes one key at a time. The local S3 removes an object's emptied folders as it deletes it,
 * so two deletes in one folder at once race (InternalError). An import has a few hundred keys,
 * few enough to delete one at a time (docs/decisions/0013-every-store-has-a-bound.md).
 */
async function deleteKeys(s3: S3Client, bucket: string, keys: readonly string[]): Promise<void> {
  for (const key of keys) await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
}

/** An ended import's work files. */
export async function removeWorkFiles(
  s3: S3Client,
  bucket: string,
  importId: string,
): Promise<void> {
  await deleteKeys(s3, bucket, await keysUnder(s3, bucket, workFolder(importId)));
}

/** Uploads, work files and reports past the stage's retention at `now`. */
export async function expireImportObjects(
  s3: S3Client,
  bucket: string,
  now = Date.now(),
): Promise<void> {
  const files = now - IMPORT_RETENTION.filesDays * DAY_MS;
  const reports = now - IMPORT_RETENTION.reportsDays * DAY_MS;
  const expired = await Promise.all([
    keysUnder(s3, bucket, PREFIX.incoming, files),
    keysUnder(s3, bucket, PREFIX.work, files),
    keysUnder(s3, bucket, PREFIX.reports, reports),
  ]);
  await deleteKeys(s3, bucket, expired.flat());
}
