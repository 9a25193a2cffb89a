import { createPresigner } from '../../functions/shared/presigner.ts';
import { useTestCredentials } from '../support/credentials.ts';

describe('presigned file URLs (SPEC 3.4)', () => {
  useTestCredentials();

  test('null key gives null', async () => {
    const presign = createPresigner({
      region: 'ap-southeast-1',
      bucketName: 'files',
      ttlSeconds: 300,
    });
    expect(await presign(null)).toBeNull();
  });

  test('an AWS URL: HTTPS, virtual-hosted bucket, encoded key, SigV4 query signed for the TTL', async () => {
    const presign = createPresigner({
      region: 'ap-southeast-1',
      bucketName: 'files',
      ttlSeconds: 300,
    });
    const url = new URL((await presign("signatures/a b+(1)'.png"))!);
    expect(url.protocol).toBe('https:');
    expect(url.host).toBe('files.s3.ap-southeast-1.amazonaws.com');
    expect(url.pathname).toBe('/signatures/a%20b%2B%281%29%27.png');
    expect(url.searchParams.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('300');
    expect(url.searchParams.get('X-Amz-Credential')).toMatch(
      /^AKIDEXAMPLE\/\d{8}\/ap-southeast-1\/s3\/aws4_request$/,
    );
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
  });

  test('an emulator URL is path-style on its endpoint, with the configured TTL', async () => {
    const presign = createPresigner({
      region: 'us-east-1',
      bucketName: 'files',
      ttlSeconds: 3600,
      endpoint: 'http://127.0.0.1:4569',
    });
    const url = new URL((await presign('id-photos/x.png'))!);
    expect(`${url.origin}${url.pathname}`).toBe('http://127.0.0.1:4569/files/id-photos/x.png');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('3600');
  });
});
