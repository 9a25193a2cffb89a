/**
 * The presigner (functions/shared/presigner.ts) against a plain S3RequestPresigner with the SDK's
 * own hash: the same URL, byte for byte, for any key, time, TTL, region, endpoint and
 * credentials; so the faster HMACs and the request built here change nothing in what is signed.
 */
import fc from 'fast-check';
import { S3RequestPresigner } from '@aws-sdk/s3-request-presigner';
import { Hash } from '@smithy/hash-node';
import { HttpRequest } from '@smithy/protocol-http';
import { formatUrl } from '@aws-sdk/util-format-url';
import { createPresigner } from '../../functions/shared/presigner.ts';

interface Case {
  key: string;
  date: Date;
  ttlSeconds: number;
  region: string;
  bucketName: string;
  endpoint: string | undefined;
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

const rfc3986 = (s: string) =>
  encodeURIComponent(s).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );

/** The URL as the SDK's S3RequestPresigner makes it. */
async function sdkUrl(c: Case): Promise<string> {
  const base = c.endpoint
    ? new URL(`${c.endpoint.replace(/\/$/, '')}/${c.bucketName}/`)
    : new URL(`https://${c.bucketName}.s3.${c.region}.amazonaws.com/`);
  const signer = new S3RequestPresigner({
    credentials: c.credentials,
    region: c.region,
    sha256: Hash.bind(null, 'sha256'),
  });
  const request = new HttpRequest({
    method: 'GET',
    protocol: base.protocol,
    hostname: base.hostname,
    port: base.port ? Number(base.port) : undefined,
    path: `${base.pathname}${c.key.split('/').map(rfc3986).join('/')}`,
    headers: { host: base.host },
  });
  return formatUrl(await signer.presign(request, { expiresIn: c.ttlSeconds, signingDate: c.date }));
}

async function ourUrl(c: Case): Promise<string | null> {
  const { accessKeyId, secretAccessKey, sessionToken } = c.credentials;
  process.env.AWS_ACCESS_KEY_ID = accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = secretAccessKey;
  if (sessionToken) process.env.AWS_SESSION_TOKEN = sessionToken;
  else delete process.env.AWS_SESSION_TOKEN;
  const presign = createPresigner({
    region: c.region,
    bucketName: c.bucketName,
    ttlSeconds: c.ttlSeconds,
    endpoint: c.endpoint,
    now: () => c.date,
  });
  return presign(c.key);
}

const env = { ...process.env };
afterAll(() => {
  process.env = env;
});

const base: Case = {
  key: 'signatures/t-1.png',
  date: new Date('2025-03-04T05:06:07.890Z'),
  ttlSeconds: 300,
  region: 'ap-southeast-1',
  bucketName: 'files',
  endpoint: undefined,
  credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCY' },
};

test.each<[string, Partial<Case>]>([
  ['a plain key on AWS', {}],
  [
    'a session token (as in Lambda)',
    { credentials: { ...base.credentials, sessionToken: 'IQo/Jb3+Jp==' } },
  ],
  ['reserved and non-ASCII characters', { key: "id photos/a b+(1)'!*~;=:@&$,é漢😀.png" }],
  ['an emulator endpoint with a port', { endpoint: 'http://127.0.0.1:4569', region: 'us-east-1' }],
  [
    'an endpoint with a trailing slash and an hour TTL',
    { endpoint: 'http://localhost:4569/', ttlSeconds: 3600 },
  ],
  ['midnight UTC', { date: new Date('2024-12-31T23:59:59.999Z') }],
])('the same URL as the SDK: %s', async (_, overrides) => {
  const c = { ...base, ...overrides };
  expect(await ourUrl(c)).toBe(await sdkUrl(c));
});

test('the same URL as the SDK for any key, time, TTL and credentials', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc
        .string({ minLength: 1, maxLength: 40, unit: 'grapheme' })
        .filter((k) => !k.startsWith('/')),
      fc.date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true }),
      fc.integer({ min: 1, max: 3600 }),
      fc.option(fc.string({ minLength: 1, maxLength: 30 }), { nil: undefined }),
      fc.constantFrom('us-east-1', 'eu-west-3', 'ap-southeast-1'),
      fc.constantFrom(undefined, 'http://127.0.0.1:4569'),
      async (key, date, ttlSeconds, sessionToken, region, endpoint) => {
        const c: Case = {
          ...base,
          key,
          date,
          ttlSeconds,
          region,
          endpoint,
          credentials: { ...base.credentials, ...(sessionToken ? { sessionToken } : {}) },
        };
        expect(await ourUrl(c)).toBe(await sdkUrl(c));
      },
    ),
    { numRuns: 300 },
  );
});

test('one presigner keeps signing correctly across days and a change of credentials', async () => {
  let date = new Date('2025-01-01T23:59:59Z');
  process.env.AWS_ACCESS_KEY_ID = 'AKID1';
  process.env.AWS_SECRET_ACCESS_KEY = 'secret1';
  delete process.env.AWS_SESSION_TOKEN;
  const presign = createPresigner({ ...base, now: () => date });
  for (const [at, secret] of [
    ['2025-01-01T23:59:59Z', 'secret1'],
    ['2025-01-02T00:00:01Z', 'secret1'],
    ['2025-01-02T00:00:02Z', 'secret2'],
  ] as const) {
    date = new Date(at);
    process.env.AWS_SECRET_ACCESS_KEY = secret;
    const c = { ...base, date, credentials: { accessKeyId: 'AKID1', secretAccessKey: secret } };
    expect(await presign(c.key)).toBe(await sdkUrl(c));
  }
});

test('without credentials in the environment it fails at init, or on a later call, rather than sign with nothing', async () => {
  process.env.AWS_ACCESS_KEY_ID = 'AKID1';
  process.env.AWS_SECRET_ACCESS_KEY = 'secret1';
  const presign = createPresigner(base);
  delete process.env.AWS_ACCESS_KEY_ID;
  delete process.env.AWS_SECRET_ACCESS_KEY;
  await expect(presign('a.png')).rejects.toThrow(/No AWS credentials in the environment/);
  expect(() => createPresigner(base)).toThrow(/No AWS credentials in the environment/);
});
