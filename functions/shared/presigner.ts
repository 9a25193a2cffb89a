/**
 * Presigned GET URLs for files (SPEC 3.4), signed by the SDK's S3RequestPresigner on its own:
 * the S3 client is never loaded. Two choices keep a URL cheap (docs/performance.md): HMACs with
 * KeyObject keys (../sdk/sha256; Node.js 24 makes Buffer-keyed HMACs slow), and credentials read
 * straight from the environment rather than through a provider chain (../sdk/lambda-credentials).
 */
import { S3RequestPresigner } from '@aws-sdk/s3-request-presigner';
import { formatUrl } from '@aws-sdk/util-format-url';
import { HttpRequest } from '@smithy/protocol-http';
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import { encodeKey } from '../../core/file-keys.ts';
import { lambdaCredentials } from '../sdk/lambda-credentials.ts';
import { Sha256 } from '../sdk/sha256.ts';

export interface PresignerOptions {
  region: string;
  bucketName: string;
  ttlSeconds: number;
  /** Path-style endpoint of an S3 emulator; virtual-hosted AWS S3 when unset. */
  endpoint?: string | undefined;
  /** @default the function's own credentials (../sdk/lambda-credentials) */
  credentialProvider?: AwsCredentialIdentityProvider | undefined;
  /** Tests only: the signing time. */
  now?: () => Date;
}

export type Presign = (key: string | null) => Promise<string | null>;

export function createPresigner(options: PresignerOptions): Presign {
  // The function's own credentials, as its DynamoDB client gets them (../sdk/lambda-credentials).
  const signer = new S3RequestPresigner({
    credentials: options.credentialProvider ?? lambdaCredentials(),
    region: options.region,
    sha256: Sha256,
  });
  const now = options.now ?? (() => new Date());
  const base = options.endpoint
    ? new URL(`${options.endpoint.replace(/\/$/, '')}/${options.bucketName}/`)
    : new URL(`https://${options.bucketName}.s3.${options.region}.amazonaws.com/`);
  const port = base.port ? Number(base.port) : undefined;

  return async (key) => {
    if (key === null) return null;
    const request = new HttpRequest({
      method: 'GET',
      protocol: base.protocol,
      hostname: base.hostname,
      port,
      path: `${base.pathname}${encodeKey(key)}`,
      headers: { host: base.host },
    });
    const signed = await signer.presign(request, {
      expiresIn: options.ttlSeconds,
      signingDate: now(),
    });
    return formatUrl(signed);
  };
}
