/**
 * SPEC 6 file keys: any key S3 stores under the readable prefixes round-trips through the
 * import, and the presigned URL the real handler returns opens it: the bytes are fetched back
 * from the local S3, which checks the SigV4 signature over the canonical URI as AWS S3 does
 * (each path segment URI-encoded once, `/` kept). Records with unsorted children round-trip too.
 * (A key with an empty segment, `signatures//x`, is accepted and works in AWS; s3rver cannot
 * store one, so it is not fetched here.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { parseExactJson, stringifyExactJson } from '../../core/json.ts';
import type { ApiHandler } from '../../functions/shared/http.ts';
import { startS3, type LocalS3 } from '../../local/s3/s3-server.ts';
import { S3RVER_CREDENTIALS, s3Client } from '../../local/s3/s3-client.ts';
import { currencyLine, customer, line, riskAssessment, transaction } from '../fixtures.ts';
import { startTestTable } from '../support/dynamodb.ts';
import { testHandlers } from '../support/handlers.ts';
import { apiEvent, lambdaContext } from '../support/events.ts';

const dir = mkdtempSync(join(tmpdir(), 'file-keys-'));
let table: Awaited<ReturnType<typeof startTestTable>>;
let s3: LocalS3;
let getTransaction: ApiHandler;
let getCustomer: ApiHandler;

beforeAll(async () => {
  [table, s3] = await Promise.all([
    startTestTable(),
    startS3({ port: 0, dataDir: join(dir, 's3') }),
  ]);
  ({ transaction: getTransaction, customer: getCustomer } = testHandlers(
    table.endpoint,
    table.tableName,
    {
      S3_ENDPOINT: s3.endpoint,
      BUCKET_NAME: s3.bucketName,
      AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
    },
  ));
}, 90_000);
afterAll(async () => {
  await Promise.all([table?.stop(), s3?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

const KEYS: [string, string][] = [
  ['a space', 'signatures/123/sig file.png'],
  ['a plus', 'signatures/a+b.png'],
  ['a percent', 'attachments/100% done %20 %zz.pdf'],
  ['a hash', 'attachments/receipt #42.pdf'],
  ['a question mark', 'signatures/why?.png'],
  ['query-like text', 'attachments/a?X-Amz-Signature=0&b=c.pdf'],
  ['accents', 'id-photos/José Ñandú Müller.jpg'],
  ['CJK', 'id-photos/写真/顧客.png'],
  ['Arabic', 'id-photos/صورة العميل.png'],
  ['emoji', 'signatures/✍️😀.png'],
  ['reserved characters', "signatures/!$&'()*,;=:@[]{}^`|~\\.png"],
  // S3's longest key. s3rver keeps objects as files, whose names may be 255 bytes at most: so
  // several segments (AWS S3 has no such limit). 11 + 4 * 200 + 213 = 1024 bytes.
  [
    '1024 bytes',
    `signatures/${`${'é'.repeat(50)}${'写'.repeat(33)}/`.repeat(4)}${'a'.repeat(213)}`,
  ],
];

test("the longest key under test is S3's limit, 1024 bytes of UTF-8", () => {
  const lengths = KEYS.map(([, key]) => Buffer.byteLength(key));
  expect(Math.max(...lengths)).toBe(1024);
});

test.each(KEYS)('a key with %s: imported, returned, and its URL opens', async (_name, key) => {
  const bytes = Buffer.from(`bytes of ${key}`);
  const client = s3Client(s3.endpoint);
  try {
    await client.send(new PutObjectCommand({ Bucket: s3.bucketName, Key: key, Body: bytes }));
  } finally {
    client.destroy();
  }
  const id = 7000 + KEYS.findIndex(([, k]) => k === key);
  const field = key.startsWith('attachments/')
    ? 'attachment'
    : key.startsWith('signatures/')
      ? 'signature'
      : 'id_photo';
  await table.importLines([
    field === 'id_photo'
      ? line('customer', customer({ id, id_photo: key }))
      : line('transaction', transaction({ id, signature: null, attachment: null, [field]: key })),
  ]);

  const result =
    field === 'id_photo'
      ? await getCustomer(
          apiEvent('GET /customers/{customer_id}', { customer_id: String(id) }),
          lambdaContext,
        )
      : await getTransaction(
          apiEvent('GET /transactions/{transaction_id}', { transaction_id: String(id) }),
          lambdaContext,
        );
  expect(result.statusCode).toBe(200);
  const url = (parseExactJson(result.body) as { data: Record<string, string> }).data[field]!;
  // The key is in the path, whole, encoded: nothing of it spills into the query.
  const parsed = new URL(url);
  expect(decodeURIComponent(parsed.pathname)).toBe(`/${s3.bucketName}/${key}`);
  expect([...parsed.searchParams.keys()].every((k) => k.startsWith('X-Amz-'))).toBe(true);
  const res = await fetch(url);
  expect(res.status).toBe(200);
  expect(Buffer.from(await res.arrayBuffer())).toEqual(bytes);
});

test('unsorted children round-trip in ascending id order, the record otherwise as imported', async () => {
  const ids = [9, 3, 1000, 1, 42];
  const t = transaction({ id: 7100, transaction_currencies: ids.map(currencyLine) });
  const c = customer({
    id: 7100,
    customer_risk_assessments: ids.map((id) => riskAssessment(7100, id)),
  });
  await table.importLines([line('transaction', t), line('customer', c)]);
  const sortById = (list: { id: number }[]) => [...list].sort((a, b) => a.id - b.id);
  const exact = (value: unknown) => parseExactJson(stringifyExactJson(value));

  const tr = await getTransaction(
    apiEvent('GET /transactions/{transaction_id}', { transaction_id: '7100' }),
    lambdaContext,
  );
  const { signature: _s, ...gotT } = (parseExactJson(tr.body) as { data: Record<string, unknown> })
    .data;
  const { signature: _t, ...wantT } = t;
  expect(gotT).toEqual(
    exact({
      ...wantT,
      transaction_currencies: sortById(t.transaction_currencies as { id: number }[]),
    }),
  );

  const cr = await getCustomer(
    apiEvent('GET /customers/{customer_id}', { customer_id: '7100' }),
    lambdaContext,
  );
  expect((parseExactJson(cr.body) as { data: unknown }).data).toEqual(
    exact({
      ...c,
      customer_risk_assessments: sortById(c.customer_risk_assessments as { id: number }[]),
    }),
  );
});
