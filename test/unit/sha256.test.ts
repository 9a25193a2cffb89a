/**
 * The DynamoDB client signs with functions/sdk/sha256.ts rather than the SDK's hash, for speed;
 * these tests hold it to the same digests and the same SigV4 signatures as the SDK's.
 */
import { createHash, createHmac } from 'node:crypto';
import { Hash } from '@smithy/hash-node';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import { Sha256 } from '../../functions/sdk/sha256.ts';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

async function digest(
  ctor: new (secret?: string | Uint8Array) => {
    update(d: unknown): void;
    digest(): Promise<Uint8Array>;
  },
  data: unknown[],
  secret?: string | Uint8Array,
) {
  const hash = new ctor(secret);
  for (const d of data) hash.update(d);
  return hex(await hash.digest());
}

test.each<[string, unknown[]]>([
  ['a string', ['GET\n/\n\nhost:example.com\n\nhost\nUNSIGNED-PAYLOAD']],
  ['non-ASCII text', ['é漢😀']],
  ['bytes in several updates', [new Uint8Array([1, 2, 3]), Buffer.from('abc'), 'tail']],
  ['a view into a larger buffer', [new Uint8Array(Buffer.from('xxhelloxx').buffer, 2, 5)]],
  ['nothing', []],
])('SHA-256 and HMAC-SHA256 of %s are the SDK’s', async (_, data) => {
  expect(await digest(Sha256, data)).toBe(await digest(Hash.bind(null, 'sha256'), data));
  for (const secret of ['AWS4secret/é', new Uint8Array(32).fill(7)]) {
    expect(await digest(Sha256, data, secret)).toBe(
      await digest(Hash.bind(null, 'sha256'), data, secret),
    );
  }
  const text = data.map((d) =>
    typeof d === 'string' ? Buffer.from(d) : Buffer.from(d as Uint8Array),
  );
  expect(await digest(Sha256, data)).toBe(
    createHash('sha256').update(Buffer.concat(text)).digest('hex'),
  );
  expect(await digest(Sha256, data, 'k')).toBe(
    createHmac('sha256', 'k').update(Buffer.concat(text)).digest('hex'),
  );
});

test('a DynamoDB request signed with it carries the SDK’s signature, day after day', async () => {
  const request = () =>
    new HttpRequest({
      method: 'POST',
      protocol: 'https:',
      hostname: 'dynamodb.ap-southeast-1.amazonaws.com',
      path: '/',
      headers: {
        host: 'dynamodb.ap-southeast-1.amazonaws.com',
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': 'DynamoDB_20120810.Query',
      },
      body: JSON.stringify({ TableName: 't', KeyConditionExpression: '#pk = :pk' }),
    });
  const signer = (sha256: typeof Sha256) =>
    new SignatureV4({
      credentials: { accessKeyId: 'AKID', secretAccessKey: 'secret/+', sessionToken: 'tok' },
      region: 'ap-southeast-1',
      service: 'dynamodb',
      sha256,
    });
  const ours = signer(Sha256);
  const sdk = signer(Hash.bind(null, 'sha256') as unknown as typeof Sha256);
  for (const at of ['2025-01-01T23:59:59Z', '2025-01-02T00:00:00Z', '2025-01-02T12:00:00Z']) {
    const signingDate = new Date(at);
    const a = await ours.sign(request(), { signingDate });
    const b = await sdk.sign(request(), { signingDate });
    expect(a.headers.authorization).toMatch(/Signature=[0-9a-f]{64}$/);
    expect(a.headers).toEqual(b.headers);
  }
});
