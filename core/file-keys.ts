/**
 * S3 object keys of the files the API hands out (SPEC 3.4, 6): which keys a record may hold,
 * and how a key is written in a URL. The import refuses what the deployed functions could not
 * read or a browser could not open; the presigner and the local S3's signature check encode keys
 * the same way.
 */
import { nullable } from './schema';

/**
 * S3 key prefixes of the files the API hands out as presigned URLs (SPEC 3.4). The functions may
 * read objects under these prefixes and nothing else in the bucket (lib/api.ts grants them).
 */
export const FILE_PREFIXES = ['signatures/', 'attachments/', 'id-photos/'] as const;
const MAX_KEY_BYTES = 1024;
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Any key S3 stores (1 to 1024 bytes of UTF-8) under a readable prefix. Two kinds are refused
 * because their link could not open: a lone surrogate (not UTF-8 at all) and a `.` or `..`
 * path segment, which browsers and HTTP clients resolve away before sending (even encoded).
 */
export const fileKey = nullable((value, path, problems) => {
  const refuse = (reason: string) => void problems.push({ path, reason });
  if (typeof value !== 'string') refuse('must be an S3 object key (a string) or null');
  else if (LONE_SURROGATE.test(value)) refuse('must be text that UTF-8 can hold');
  else if (Buffer.byteLength(value) > MAX_KEY_BYTES)
    refuse(`must be at most ${MAX_KEY_BYTES} bytes of UTF-8 (S3's limit)`);
  else if (!FILE_PREFIXES.some((prefix) => value.startsWith(prefix)))
    refuse(
      `must begin with ${FILE_PREFIXES.join(', ')}: the deployed functions may read no other key`,
    );
  else if (value.split('/').some((segment) => segment === '.' || segment === '..'))
    refuse(
      'must not have "." or ".." between slashes: HTTP clients rewrite those, so the link would not open',
    );
  return value;
});

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
