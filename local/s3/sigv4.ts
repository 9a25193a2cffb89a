/**
 * Verification of S3 presigned URLs (query-string SigV4), done in front of s3rver: s3rver 3.7.1
 * checks only the access key id and the expiry of a V4 request ("Signature version 4 calculation
 * is unimplemented") and serves unsigned requests anonymously. Real S3 refuses both for a private
 * bucket, so the local rig must too, or a broken presigner would go unnoticed locally.
 *
 * https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { encodeRfc3986 } from '../../core/file-keys.ts';

export type PresignCheck =
  | { ok: true }
  | {
      ok: false;
      code:
        | 'AccessDenied'
        | 'SignatureDoesNotMatch'
        | 'InvalidAccessKeyId'
        | 'AuthorizationQueryParametersError';
      message: string;
    };

export interface PresignedRequest {
  method: string;
  /** Path and query exactly as received, e.g. `/bucket/key.png?X-Amz-Algorithm=...`. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
}

function decode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** The raw query as [name, value] pairs, percent-decoded ('+' is not a space in SigV4). */
export function parseQuery(query: string): [string, string][] {
  if (!query) return [];
  return query.split('&').map((part) => {
    const eq = part.indexOf('=');
    return eq < 0 ? [decode(part), ''] : [decode(part.slice(0, eq)), decode(part.slice(eq + 1))];
  });
}

function hmac(key: Buffer | string, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

function amzDate(value: string): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!m) return undefined;
  return new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!));
}

/** True when the request carries a query-string (presigned) SigV4 signature. */
export function isPresigned(url: string): boolean {
  const q = url.indexOf('?');
  return q >= 0 && parseQuery(url.slice(q + 1)).some(([name]) => name === 'X-Amz-Algorithm');
}

/**
 * Checks a presigned request: algorithm, known access key, credential scope, expiry, and the
 * signature over the canonical request (method, path, query, signed headers, UNSIGNED-PAYLOAD).
 */
export function verifyPresigned(
  request: PresignedRequest,
  secretFor: (accessKeyId: string) => string | undefined,
  now: Date = new Date(),
): PresignCheck {
  const q = request.url.indexOf('?');
  const rawPath = q < 0 ? request.url : request.url.slice(0, q);
  const params = parseQuery(q < 0 ? '' : request.url.slice(q + 1));
  const get = (name: string) => params.find(([n]) => n === name)?.[1];
  const bad = (message: string): PresignCheck => ({
    ok: false,
    code: 'AuthorizationQueryParametersError',
    message,
  });

  const algorithm = get('X-Amz-Algorithm');
  const credential = get('X-Amz-Credential');
  const date = get('X-Amz-Date');
  const expires = get('X-Amz-Expires');
  const signedHeaders = get('X-Amz-SignedHeaders');
  const signature = get('X-Amz-Signature');
  if (algorithm !== 'AWS4-HMAC-SHA256') return bad('X-Amz-Algorithm must be AWS4-HMAC-SHA256');
  if (!credential || !date || !expires || !signedHeaders || !signature) {
    return bad(
      'Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.',
    );
  }
  const [accessKeyId, scopeDate, region, service, terminator, ...rest] = credential.split('/');
  if (
    !accessKeyId ||
    !scopeDate ||
    !region ||
    service !== 's3' ||
    terminator !== 'aws4_request' ||
    rest.length
  ) {
    return bad('Error parsing the X-Amz-Credential parameter');
  }
  const secret = secretFor(accessKeyId);
  if (secret === undefined) {
    return {
      ok: false,
      code: 'InvalidAccessKeyId',
      message: 'The AWS Access Key Id you provided does not exist in our records.',
    };
  }
  const signedAt = amzDate(date);
  if (!signedAt || date.slice(0, 8) !== scopeDate)
    return bad('X-Amz-Date must be in the ISO8601 Long Format and match the credential scope date');
  if (!/^[0-9]+$/.test(expires) || Number(expires) < 1 || Number(expires) > 604800) {
    return bad('X-Amz-Expires must be from 1 to 604800 seconds');
  }
  if (now.getTime() > signedAt.getTime() + Number(expires) * 1000) {
    return { ok: false, code: 'AccessDenied', message: 'Request has expired' };
  }
  if (signedAt.getTime() > now.getTime() + 15 * 60 * 1000) {
    return { ok: false, code: 'AccessDenied', message: 'Request is not valid yet' };
  }

  const headerNames = signedHeaders.split(';');
  if (!headerNames.includes('host')) return bad('X-Amz-SignedHeaders must include host');
  const headerValue = (name: string) => {
    const value = request.headers[name];
    return (Array.isArray(value) ? value.join(',') : (value ?? '')).trim().replace(/\s+/g, ' ');
  };
  const canonicalPath = rawPath
    .split('/')
    .map((segment) => encodeRfc3986(decode(segment)))
    .join('/');
  const canonicalQuery = params
    .filter(([name]) => name !== 'X-Amz-Signature')
    .map(([name, value]) => [encodeRfc3986(name), encodeRfc3986(value)] as const)
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const canonicalRequest = [
    request.method.toUpperCase(),
    canonicalPath,
    canonicalQuery,
    headerNames.map((name) => `${name}:${headerValue(name)}\n`).join(''),
    signedHeaders,
    get('X-Amz-Content-Sha256') ?? 'UNSIGNED-PAYLOAD',
  ].join('\n');
  const scope = `${scopeDate}/${region}/s3/aws4_request`;
  const stringToSign = [
    'AWS4-HMAC-SHA256',
    date,
    scope,
    createHash('sha256').update(canonicalRequest, 'utf8').digest('hex'),
  ].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, scopeDate), region), 's3'), 'aws4_request');
  const expected = hmac(key, stringToSign);
  const provided = /^[0-9a-f]{64}$/.test(signature)
    ? Buffer.from(signature, 'hex')
    : Buffer.alloc(0);
  if (provided.length !== expected.length || !timingSafeEqual(provided, expected)) {
    return {
      ok: false,
      code: 'SignatureDoesNotMatch',
      message:
        'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
    };
  }
  return { ok: true };
}
