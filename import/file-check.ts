/**
 * Which of the files an import's records name are not in the stage's files bucket. A record
 * naming a missing file still imports (the file may be put later), but its link would answer
 * 404 until then, so the report warns with the line, field and key.
 *
 * Asked with ListObjectsV2 (the key as prefix, one key back): the import may list the files
 * bucket's names (s3:ListBucket) but never read a file, ID photos included. One request per
 * distinct key of a part, FILE_CHECKS_AT_ONCE at a time.
 */
import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { problemText } from './checked-lines.ts';
import type { FileRef, LineProblem } from './parts.ts';

const FILE_CHECKS_AT_ONCE = 32;

/**
 * Whether `key` is in the bucket, by listing: a HEAD needs s3:GetObject, which CheckPart lacks.
 * Asked URL-encoded: S3 answers in XML, which cannot carry every character a key may hold (control
 * characters; `\r` would come back as `\n`). A store that ignores the request (the local S3)
 * says so by leaving EncodingType out, and its key is then as stored.
 */
export async function existsByListing(s3: S3Client, bucket: string, key: string): Promise<boolean> {
  const { Contents, EncodingType } = await s3.send(
    new ListObjectsV2Command({ Bucket: bucket, Prefix: key, MaxKeys: 1, EncodingType: 'url' }),
  );
  const found = Contents?.[0]?.Key;
  if (found === undefined) return false;
  // S3's URL encoding writes a space as `+`.
  return (EncodingType === 'url' ? decodeURIComponent(found.replace(/\+/g, ' ')) : found) === key;
}

/** The refs whose key is not in `bucket`, in line order, as warnings worded as problems are. */
export async function missingFiles(
  s3: S3Client,
  bucket: string,
  refs: readonly FileRef[],
): Promise<LineProblem[]> {
  const keys = [...new Set(refs.map(([, , key]) => key))];
  const missing = new Set<string>();
  let next = 0;
  const worker = async () => {
    while (next < keys.length) {
      const key = keys[next++]!;
      if (!(await existsByListing(s3, bucket, key))) missing.add(key);
    }
  };
  await Promise.all(Array.from({ length: Math.min(FILE_CHECKS_AT_ONCE, keys.length) }, worker));
  return refs
    .filter(([, , key]) => missing.has(key))
    .sort((a, b) => a[0] - b[0])
    .map(([lineNo, field, key]) => [
      lineNo,
      problemText(
        lineNo,
        field,
        `${JSON.stringify(key)} is not in the files bucket: its link answers 404 until the file is put there`,
      ),
    ]);
}
