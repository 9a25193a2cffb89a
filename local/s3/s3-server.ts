/**
 * A local S3: s3rver in-process behind a thin front that makes the bucket private as on AWS
 * (presigned URLs are verified, see sigv4.ts; unsigned requests are refused), with the files
 * bucket created and the demo images uploaded.
 */
import { createHash } from 'node:crypto';
import { createWriteStream, readFileSync } from 'node:fs';
import { mkdir, rename } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { PROJECT_ROOT } from '../../core/project-root.ts';
import { LOCALHOST } from '../net.ts';
import { S3RVER_CREDENTIALS, s3Client } from './s3-client.ts';
import { isPresigned, verifyPresigned } from './sigv4.ts';

export const DEFAULT_BUCKET_NAME = 'currency-exchange-files';
/** The local import drop (SPEC 9): files under `incoming/`, reports under `reports/`. */
export const DEFAULT_IMPORT_BUCKET_NAME = 'currency-exchange-imports';
export const DEMO_IMAGE_FILE = join(PROJECT_ROOT, 'local', 'demo-signature.png');
/** Object keys of the demo files referenced by local/demo-data.jsonl. */
export const DEMO_OBJECT_KEYS = [
  'signatures/demo-signature.png',
  'id-photos/demo-id-photo.png',
] as const;

export interface LocalS3Options {
  /** Port on 127.0.0.1; 0 = any free port. */
  port: number;
  /** Directory of s3rver's files. */
  dataDir: string;
  bucketName?: string;
  importBucketName?: string;
}

export interface LocalS3 {
  /** e.g. http://127.0.0.1:4569 (path-style: <endpoint>/<bucket>/<key>) */
  readonly endpoint: string;
  readonly bucketName: string;
  readonly importBucketName: string;
  stop(): Promise<void>;
}

/** What s3rver's filesystem store is to us: where an object's file lies, and how it is put. */
interface S3rverObject {
  bucket: string;
  key: string;
  content: Buffer | Readable;
  metadata: Record<string, string>;
}
interface S3rverStore {
  existsObject(bucket: string, key: string): Promise<boolean>;
  getResourcePath(bucket: string, key: string, resource: string): string;
  putMetadata(bucket: string, key: string, metadata: object, md5: string): Promise<void>;
  putObject(object: S3rverObject): Promise<{ size: number; md5: string }>;
}
interface S3rverInstance {
  configureBuckets(): Promise<void>;
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  logger: { close(): void };
  store: S3rverStore;
}
type S3rverClass = new (options: object) => S3rverInstance;

let partials = 0;

/**
 * S3's PUT is atomic: a GET sees the old object or the new one whole. s3rver writes the object's
 * file in place, so a GET during a PUT read it half written (an import report read as empty JSON,
 * beside two busy loops). Here the bytes go to a file aside, renamed over the object's once
 * written: a reader sees no object yet (404), or all of it.
 */
function atomicPuts(store: S3rverStore): void {
  store.putObject = async (object) => {
    const path = store.getResourcePath(object.bucket, object.key, 'object');
    await mkdir(dirname(path), { recursive: true });
    const aside = `${path}.${process.pid}-${(partials += 1)}.partial`;
    const md5 = createHash('md5');
    let size = 0;
    const source = Buffer.isBuffer(object.content)
      ? Readable.from([object.content])
      : object.content;
    const count = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        md5.update(chunk);
        size += chunk.length;
        callback(null, chunk);
      },
    });
    await pipeline(source, count, createWriteStream(aside));
    const digest = md5.digest('hex');
    await store.putMetadata(object.bucket, object.key, object.metadata, digest);
    await rename(aside, path);
    return { size, md5: digest };
  };
}

function s3Error(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  requestId: string,
) {
  const xml =
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<Error><Code>${code}</Code><Message>${message.replace(/[<>&]/g, '')}</Message><RequestId>${requestId}</RequestId></Error>`;
  res.writeHead(status, {
    'content-type': 'application/xml',
    'content-length': Buffer.byteLength(xml),
    'x-amz-request-id': requestId,
  });
  res.end(xml);
}

/** The bucket and key a path-style object PUT names; undefined for a part of a multipart upload. */
function objectOf(url: string): { bucket: string; key: string } | undefined {
  const { pathname, searchParams } = new URL(url, 'http://local');
  if (searchParams.has('uploadId') || searchParams.has('partNumber')) return undefined;
  const [, bucket, ...key] = pathname.split('/');
  if (!bucket || key.length === 0 || key.join('/') === '') return undefined;
  return { bucket: decodeURIComponent(bucket), key: decodeURIComponent(key.join('/')) };
}

/**
 * S3's conditional write (PutObject with `If-None-Match: *`, Amazon S3 User Guide, "conditional
 * writes"): stored only when the key holds no object, refused with 412 PreconditionFailed
 * otherwise; s3rver ignores the header on a PUT. Conditional PUTs of one key are decided one at a
 * time, each after the one before has stored its object or been refused, so that of two at once
 * exactly one lands, as on S3 (whose other answer may also be 409 ConditionalRequestConflict).
 */
function conditionalPuts(
  store: S3rverStore,
  handle: (req: IncomingMessage, res: ServerResponse) => void,
) {
  const queues = new Map<string, Promise<void>>();
  return async (
    req: IncomingMessage,
    res: ServerResponse,
    target: { bucket: string; key: string },
    requestId: string,
  ) => {
    if (req.headers['if-none-match'] !== '*') {
      req.resume();
      s3Error(res, 501, 'NotImplemented', 'If-None-Match on a PUT takes only *', requestId);
      return;
    }
    const id = `${target.bucket}/${target.key}`;
    const before = queues.get(id) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const turn = before.then(() => mine);
    queues.set(id, turn);
    void turn.then(() => {
      if (queues.get(id) === turn) queues.delete(id);
    });
    await before;
    try {
      if (await store.existsObject(target.bucket, target.key)) {
        req.resume();
        s3Error(
          res,
          412,
          'PreconditionFailed',
          'At least one of the pre-conditions you specified did not hold',
          requestId,
        );
        release();
        return;
      }
    } catch (error) {
      release();
      throw error;
    }
    res.once('close', release);
    handle(req, res);
  };
}

export async function startS3(options: LocalS3Options): Promise<LocalS3> {
  const bucketName = options.bucketName ?? DEFAULT_BUCKET_NAME;
  const importBucketName = options.importBucketName ?? DEFAULT_IMPORT_BUCKET_NAME;
  const require = createRequire(import.meta.url);
  const S3rver = require('s3rver') as S3rverClass;
  const s3rver = new S3rver({
    silent: true,
    directory: resolve(options.dataDir),
    configureBuckets: [bucketName, importBucketName].map((name) => ({ name, configs: [] })),
    vhostBuckets: false,
  });
  atomicPuts(s3rver.store);
  await s3rver.configureBuckets();
  const handle = s3rver.callback();
  const conditionalPut = conditionalPuts(s3rver.store, handle);
  const secrets = new Map<string, string>([
    [S3RVER_CREDENTIALS.accessKeyId, S3RVER_CREDENTIALS.secretAccessKey],
  ]);
  let counter = 0;

  const server: Server = createServer((req, res) => {
    const requestId = `LOCAL${(++counter).toString(16).toUpperCase().padStart(11, '0')}`;
    const url = req.url ?? '/';
    if (isPresigned(url)) {
      const check = verifyPresigned(
        { method: req.method ?? 'GET', url, headers: req.headers },
        (id) => secrets.get(id),
      );
      if (!check.ok) {
        s3Error(
          res,
          check.code === 'AuthorizationQueryParametersError' ? 400 : 403,
          check.code,
          check.message,
          requestId,
        );
        return;
      }
    } else if (!req.headers.authorization) {
      // A private bucket: anonymous requests are refused, as on AWS.
      s3Error(res, 403, 'AccessDenied', 'Access Denied', requestId);
      return;
    }
    // Header-signed (SDK) requests go on to s3rver, which checks the access key id only.
    const target = req.method === 'PUT' ? objectOf(url) : undefined;
    if (target && req.headers['if-none-match'] !== undefined) {
      conditionalPut(req, res, target, requestId).catch(() =>
        s3Error(res, 500, 'InternalError', 'the conditional write failed', requestId),
      );
      return;
    }
    handle(req, res);
  });
  await new Promise<void>((r, reject) => {
    server.once('error', reject);
    server.listen(options.port, LOCALHOST, () => r());
  });
  const address = server.address();
  if (!address || typeof address !== 'object') throw new Error('local S3 has no address');
  const endpoint = `http://${LOCALHOST}:${address.port}`;

  const stop = async () => {
    await new Promise<void>((r) => {
      server.close(() => r());
      server.closeAllConnections();
    });
    s3rver.logger.close();
  };

  try {
    const client = s3Client(endpoint);
    const image = readFileSync(DEMO_IMAGE_FILE);
    for (const key of DEMO_OBJECT_KEYS) {
      await client.send(
        new PutObjectCommand({
          Bucket: bucketName,
          Key: key,
          Body: image,
          ContentType: 'image/png',
        }),
      );
    }
    client.destroy();
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint, bucketName, importBucketName, stop };
}
