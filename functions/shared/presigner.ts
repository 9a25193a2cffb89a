/**
 * Presigned GET URLs for files (SPEC 3.4). S3RequestPresigner signs a request on its own, so
 * the S3 client is never loaded: a smaller bundle and a cheaper URL.
 */
import { S3RequestPresigner } from '@aws-sdk/s3-request-presigner';
import { fromEnv } from '@aws-sdk/credential-provider-env';
import { Hash } from '@smithy/hash-node';
import { HttpRequest } from '@smithy/protocol-http';
import { formatUrl } from '@aws-sdk/util-format-url';

export interface PresignerOptions {
  region: string;
  bucketName: string;
  ttlSeconds: number;
  /** Path-style endpoint of an S3 emulator; virtual-hosted AWS S3 when unset. */
  endpoint?: string | undefined;
}

export type Presign = (key: string | null) => Promise<string | null>;

/** S3 keys are signed as sent: each path segment percent-encoded per RFC 3986. */
function encodeKey(key: string): string {
  return key
    .split('/')
    .map((segment) =>
      encodeURIComponent(segment).replace(
        /[!'()*]/g,
        (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
      ),
    )
    .join('/');
}

export function createPresigner(options: PresignerOptions): Presign {
  const signer = new S3RequestPresigner({
    credentials: fromEnv(),
    region: options.region,
    sha256: Hash.bind(null, 'sha256'),
  });
  const base = options.endpoint
    ? new URL(`${options.endpoint.replace(/\/$/, '')}/${options.bucketName}/`)
    : new URL(`https://${options.bucketName}.s3.${options.region}.amazonaws.com/`);

  return async (key) => {
    if (key === null) return null;
    const request = new HttpRequest({
      method: 'GET',
      protocol: base.protocol,
      hostname: base.hostname,
      port: base.port ? Number(base.port) : undefined,
      path: `${base.pathname}${encodeKey(key)}`,
      headers: { host: base.host },
    });
    return formatUrl(await signer.presign(request, { expiresIn: options.ttlSeconds }));
  };
}
