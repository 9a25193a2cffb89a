/**
 * The file check's one question to S3 (import/file-check.ts): is this exact key there? S3 answers
 * keys URL-encoded when asked (XML cannot carry every character a key may hold); the local S3
 * ignores the request and answers them as stored. Answers stubbed: these are S3's documented
 * forms, which the local S3 does not produce.
 */
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { existsByListing } from '../../import/file-check.ts';

const s3 = mockClient(S3Client);
afterEach(() => s3.reset());
afterAll(() => s3.restore());
const client = new S3Client({ region: 'ap-southeast-1' });

test('a key with a control character, a carriage return and a space is found as S3 encodes it', async () => {
  const key = 'signatures/T 1\r\u0001+ü.png';
  s3.on(ListObjectsV2Command).resolves({
    EncodingType: 'url',
    Contents: [{ Key: 'signatures/T+1%0D%01%2B%C3%BC.png' }],
  });
  await expect(existsByListing(client, 'files', key)).resolves.toBe(true);
  expect(s3.commandCalls(ListObjectsV2Command)[0]!.args[0].input).toEqual({
    Bucket: 'files',
    Prefix: key,
    MaxKeys: 1,
    EncodingType: 'url',
  });
});

test('a store that answers keys as stored; a longer key under the same prefix is not the key', async () => {
  s3.on(ListObjectsV2Command).resolves({ Contents: [{ Key: 'signatures/a b+c.png' }] });
  await expect(existsByListing(client, 'files', 'signatures/a b+c.png')).resolves.toBe(true);
  s3.on(ListObjectsV2Command).resolves({
    EncodingType: 'url',
    Contents: [{ Key: 'signatures/a.png.old' }],
  });
  await expect(existsByListing(client, 'files', 'signatures/a.png')).resolves.toBe(false);
  s3.on(ListObjectsV2Command).resolves({ KeyCount: 0 });
  await expect(existsByListing(client, 'files', 'signatures/a.png')).resolves.toBe(false);
});
