/** The local S3: presigned GET URLs work as on AWS, and only they (the bucket is private). */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { S3RequestPresigner, getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { formatUrl } from '@aws-sdk/util-format-url';
import { Hash } from '@smithy/hash-node';
import { HttpRequest } from '@smithy/protocol-http';
import { DEMO_IMAGE_FILE, startS3, type LocalS3 } from '../../local/s3/s3-server.ts';
import { s3Client } from '../../local/s3/s3-client.ts';

let dataDir: string;
let s3: LocalS3;
const image = readFileSync(DEMO_IMAGE_FILE);

/** Presigns as the functions do: S3RequestPresigner over a path-style URL. */
async function presign(
  key: string,
  options: { expiresIn?: number; signingDate?: Date; secret?: string } = {},
): Promise<string> {
  const url = new URL(`${s3.endpoint}/${s3.bucketName}/${key}`);
  const presigner = new S3RequestPresigner({
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: options.secret ?? 'S3RVER' },
    region: 'us-east-1',
    sha256: Hash.bind(null, 'sha256'),
  });
  const request = new HttpRequest({
    protocol: url.protocol,
    hostname: url.hostname,
    port: Number(url.port),
    method: 'GET',
    path: url.pathname,
    headers: { host: url.host },
  });
  const signed = await presigner.presign(request, {
    expiresIn: options.expiresIn ?? 300,
    ...(options.signingDate ? { signingDate: options.signingDate } : {}),
  });
  return formatUrl(signed);
}

async function errorCode(res: Response): Promise<string | undefined> {
  return /<Code>([^<]+)<\/Code>/.exec(await res.text())?.[1];
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 's3-test-'));
  s3 = await startS3({ port: 0, dataDir });
});

afterAll(async () => {
  await s3?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('a presigned GET URL returns the demo image', async () => {
  const url = await presign('signatures/demo-signature.png');
  expect(url).toMatch(
    new RegExp(`^${s3.endpoint}/currency-exchange-files/signatures/demo-signature\\.png\\?X-Amz-`),
  );
  const res = await fetch(url);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('image/png');
  expect(Buffer.from(await res.arrayBuffer())).toEqual(image);
});

test('the ID photo is there too, and the SDK getSignedUrl works as well', async () => {
  const client = s3Client(s3.endpoint);
  try {
    const url = await getSignedUrl(
      client,
      new GetObjectCommand({ Bucket: s3.bucketName, Key: 'id-photos/demo-id-photo.png' }),
      { expiresIn: 60 },
    );
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
  } finally {
    client.destroy();
  }
});

test('a URL with a tampered signature is refused', async () => {
  const url = await presign('signatures/demo-signature.png');
  const tampered = url.replace(
    /X-Amz-Signature=([0-9a-f])/,
    (_, c: string) => `X-Amz-Signature=${c === '0' ? '1' : '0'}`,
  );
  expect(tampered).not.toBe(url);
  const res = await fetch(tampered);
  expect(res.status).toBe(403);
  expect(await errorCode(res)).toBe('SignatureDoesNotMatch');
});

test('a signature does not open another object', async () => {
  const url = await presign('signatures/demo-signature.png');
  const res = await fetch(
    url.replace('signatures/demo-signature.png', 'id-photos/demo-id-photo.png'),
  );
  expect(res.status).toBe(403);
  expect(await errorCode(res)).toBe('SignatureDoesNotMatch');
});

test('a URL with a longer expiry than was signed is refused', async () => {
  const url = await presign('signatures/demo-signature.png', { expiresIn: 60 });
  const res = await fetch(url.replace('X-Amz-Expires=60', 'X-Amz-Expires=3600'));
  expect(res.status).toBe(403);
});

test('a URL signed with the wrong secret is refused', async () => {
  const res = await fetch(await presign('signatures/demo-signature.png', { secret: 'wrong' }));
  expect(res.status).toBe(403);
  expect(await errorCode(res)).toBe('SignatureDoesNotMatch');
});

test('an expired URL is refused', async () => {
  const url = await presign('signatures/demo-signature.png', {
    expiresIn: 60,
    signingDate: new Date(Date.now() - 61_000),
  });
  const res = await fetch(url);
  expect(res.status).toBe(403);
  expect(await errorCode(res)).toBe('AccessDenied');
});

test('an unsigned request is refused: the bucket is private', async () => {
  const res = await fetch(`${s3.endpoint}/${s3.bucketName}/signatures/demo-signature.png`);
  expect(res.status).toBe(403);
  expect(await errorCode(res)).toBe('AccessDenied');
});

test("a GET during a PUT sees no object or all of it, as S3's atomic PUT gives", async () => {
  const client = s3Client(s3.endpoint);
  const key = 'reports/atomic.json';
  // Sent in chunks over a while, so that GETs land while the local S3 still receives it.
  const chunks = Array.from({ length: 40 }, (_, i) => Buffer.alloc(256 * 1024, 97 + (i % 26)));
  const whole = Buffer.concat(chunks);
  async function* slowly() {
    for (const chunk of chunks) {
      yield chunk;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
  try {
    let done = false;
    const put = client
      .send(
        new PutObjectCommand({
          Bucket: s3.bucketName,
          Key: key,
          Body: Readable.from(slowly()),
          ContentLength: whole.length,
        }),
      )
      .finally(() => (done = true));
    const seen: number[] = [];
    while (!done) {
      try {
        const got = await client.send(new GetObjectCommand({ Bucket: s3.bucketName, Key: key }));
        const body = Buffer.from(await got.Body!.transformToByteArray());
        seen.push(body.length);
        expect(body.equals(whole)).toBe(true);
      } catch (error) {
        expect((error as Error).name).toBe('NoSuchKey');
        seen.push(0);
      }
    }
    await put;
    expect(seen.length).toBeGreaterThan(1);
  } finally {
    client.destroy();
  }
});

test("If-None-Match: * as S3's conditional write: the first PUT lands, later ones get 412, of many at once one wins", async () => {
  const client = s3Client(s3.endpoint);
  const put = (key: string, body: string) =>
    client.send(
      new PutObjectCommand({ Bucket: s3.importBucketName, Key: key, Body: body, IfNoneMatch: '*' }),
    );
  const read = async (key: string) =>
    (
      await client.send(new GetObjectCommand({ Bucket: s3.importBucketName, Key: key }))
    ).Body!.transformToString();
  const refusal = (error: unknown) => ({
    name: (error as Error).name,
    status: (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode,
  });
  try {
    await put('work/claim-test/claim.json', 'first');
    const second = await put('work/claim-test/claim.json', 'second').catch(refusal);
    expect(second).toEqual({ name: 'PreconditionFailed', status: 412 });
    expect(await read('work/claim-test/claim.json')).toBe('first');
    // Eight at once on a new key: exactly one stored, and its body is the one kept.
    const racing = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        put('work/claim-race/claim.json', `racer ${i}`).then(
          () => i,
          (error: unknown) => refusal(error),
        ),
      ),
    );
    const winners = racing.filter((r) => typeof r === 'number');
    expect(winners).toHaveLength(1);
    expect(racing.filter((r) => typeof r !== 'number')).toEqual(
      Array.from({ length: 7 }, () => ({ name: 'PreconditionFailed', status: 412 })),
    );
    expect(await read('work/claim-race/claim.json')).toBe(`racer ${winners[0]}`);
    // Without the header a PUT still replaces the object, as on S3.
    await client.send(
      new PutObjectCommand({
        Bucket: s3.importBucketName,
        Key: 'work/claim-test/claim.json',
        Body: 'third',
      }),
    );
    expect(await read('work/claim-test/claim.json')).toBe('third');
  } finally {
    client.destroy();
  }
});
