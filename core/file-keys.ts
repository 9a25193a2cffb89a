/**
 * S3 object keys of the files the API hands out (SPEC 3.4, 6): which keys a record may hold,
 * and how a key is written in a URL. The import refuses what the deployed functions could not
 * read or a browser could not open; the presigner and the local S3's signature check encode keys
 * the same way.
 */
import { nullable, type Check } from './schema.ts';

/**
 * The S3 key prefix of each file field (SPEC 3.4, 6): a field's key lies under its own prefix and
 * no other, so that each route's function may read only its own entity's files (lib/api.ts grants
 * them by this table) and a transaction can never hand out a customer's ID photo.
 */
export const FILE_PREFIX = {
  signature: 'signatures/',
  attachment: 'attachments/',
  id_photo: 'id-photos/',
} as const;
export type FileField = keyof typeof FILE_PREFIX;

/** Every prefix the files bucket holds records' files under. */
export const FILE_PREFIXES: readonly string[] = Object.values(FILE_PREFIX);
export const MAX_KEY_BYTES = 1024;
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Any key S3 stores (1 to 1024 bytes of UTF-8) under the field's own prefix. Two kinds are refused
 * because their link could not open: a lone surrogate (not UTF-8 at all) and a `.` or `..`
 * path segment, which browsers and HTTP clients resolve away before sending (even encoded). The
 * GET functions check stored records with the same rule, so a key that breaks it is never signed.
 */
export function fileKey(field: FileField): Check {
  const prefix = FILE_PREFIX[field];
  return nullable((value, path, problems) => {
    const refuse = (reason: string) => void problems.push({ path, reason });
    if (typeof value !== 'string') refuse('must be an S3 object key (a string) or null');
    else if (LONE_SURROGATE.test(value)) refuse('must be text that UTF-8 can hold');
    else if (Buffer.byteLength(value) > MAX_KEY_BYTES)
      refuse(`must be at most ${MAX_KEY_BYTES} bytes of UTF-8 (S3's limit)`);
    else if (!value.startsWith(prefix))
      refuse(
        `must begin with ${prefix}, where ${field} files are kept: the function that serves ` +
          'this record may read no other key',
      );
    else if (value.split('/').some((segment) => segment === '.' || segment === '..'))
      refuse(
        'must not have "." or ".." between slashes: HTTP clients rewrite those, so the link would not open',
      );
    return value;
  });
}

/** A URI component per RFC 3986: encodeURIComponent leaves `!'()*` as they are. */
export function encodeRfc3986(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** A key as sent and signed: each path segment percent-encoded per RFC 3986. */
export function encodeKey(key: string): string {
  return key.split('/').map(encodeRfc3986).join('/');
}
