/**
 * Presigned GET URLs for files (SPEC 3.4): SigV4 query-string authentication, as in
 * https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html
 *
 * Signed here with node:crypto rather than by the SDK's S3RequestPresigner. Why: a URL is the
 * largest part of a GET's own work. S3RequestPresigner cost ~70 µs a URL on Node.js 24 (request
 * cloning, generic canonicalisation, a credential provider call, and HMACs with Buffer keys,
 * which Node.js 24 makes slow), this ~10 µs: one SHA-256 and one HMAC with the day's signing key
 * kept as a KeyObject. The URL is the SDK's, byte for byte (test/unit/presigner-sdk.test.ts).
 * Measured in bench/RESULTS.md.
 */
import { createHash, createHmac, createSecretKey, type KeyObject } from 'node:crypto';

export interface PresignerOptions {
  region: string;
  bucketName: string;
  ttlSeconds: number;
  /** Path-style endpoint of an S3 emulator; virtual-hosted AWS S3 when unset. */
  endpoint?: string | undefined;
  /** Tests only: the signing time. */
  now?: () => Date;
}

export type Presign = (key: string | null) => Promise<string | null>;

/** RFC 3986 encoding as SigV4 wants it: only unreserved characters are left as they are. */
function encode(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** S3 keys are signed as sent: each path segment percent-encoded per RFC 3986. */
function encodeKey(key: string): string {
  return key.split('/').map(encode).join('/');
}

/** The function's credentials: Lambda puts them in the environment, as do the local stack and tests. */
function credentials(): { accessKeyId: string; secretAccessKey: string; sessionToken?: string } {
  const { AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN } = process.env;
  if (!AWS_ACCESS_KEY_ID || !AWS_SECRET_ACCESS_KEY)
    throw new Error('No AWS credentials in the environment to presign with');
  return AWS_SESSION_TOKEN
    ? {
        accessKeyId: AWS_ACCESS_KEY_ID,
        secretAccessKey: AWS_SECRET_ACCESS_KEY,
        sessionToken: AWS_SESSION_TOKEN,
      }
    : { accessKeyId: AWS_ACCESS_KEY_ID, secretAccessKey: AWS_SECRET_ACCESS_KEY };
}

const hmac = (key: string | Buffer | KeyObject, data: string): Buffer =>
  createHmac('sha256', key).update(data, 'utf8').digest();

export function createPresigner(options: PresignerOptions): Presign {
  const { region, ttlSeconds } = options;
  const now = options.now ?? (() => new Date());
  const base = options.endpoint
    ? new URL(`${options.endpoint.replace(/\/$/, '')}/${options.bucketName}/`)
    : new URL(`https://${options.bucketName}.s3.${region}.amazonaws.com/`);
  const origin = `${base.protocol}//${base.host}`;
  // The signing key changes with the day and the secret only: derived once, kept as a KeyObject.
  let signingKey: { for: string; key: KeyObject } | undefined;

  return async (key) => {
    if (key === null) return null;
    const { accessKeyId, secretAccessKey, sessionToken } = credentials();
    const longDate = now()
      .toISOString()
      .replace(/[-:]|\.\d{3}/g, ''); // 20250101T000000Z
    const shortDate = longDate.slice(0, 8);
    const scope = `${shortDate}/${region}/s3/aws4_request`;
    const keyFor = `${shortDate}/${region}/${secretAccessKey}`;
    if (signingKey?.for !== keyFor) {
      const service = hmac(hmac(hmac(`AWS4${secretAccessKey}`, shortDate), region), 's3');
      signingKey = { for: keyFor, key: createSecretKey(hmac(service, 'aws4_request')) };
    }
    const path = `${base.pathname}${encodeKey(key)}`;
    // Parameters sorted by name, as the canonical request wants them (and the SDK writes them).
    const query =
      'X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Content-Sha256=UNSIGNED-PAYLOAD' +
      `&X-Amz-Credential=${encode(`${accessKeyId}/${scope}`)}&X-Amz-Date=${longDate}` +
      `&X-Amz-Expires=${ttlSeconds}` +
      (sessionToken ? `&X-Amz-Security-Token=${encode(sessionToken)}` : '');
    const canonicalRequest = `GET\n${path}\n${query}&X-Amz-SignedHeaders=host\nhost:${base.host}\n\nhost\nUNSIGNED-PAYLOAD`;
    const hash = createHash('sha256').update(canonicalRequest, 'utf8').digest('hex');
    const signature = hmac(signingKey.key, `AWS4-HMAC-SHA256\n${longDate}\n${scope}\n${hash}`);
    return `${origin}${path}?${query}&X-Amz-Signature=${signature.toString('hex')}&X-Amz-SignedHeaders=host`;
  };
}
