/**
 * The store against Amazon's DynamoDB Local: corrupt stored records, read through the real
 * handlers. Import then GET: ./import.ts.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { startVersion } from '../../../core/import-version.ts';
import { parseExactJson, stringifyExactJson } from '../../../core/json.ts';
import { customer, line, transaction } from '../../fixtures.ts';
import { get, importLines, table, useStoreTable } from '../../support/store.ts';

useStoreTable();

/** Items written by hand in the table's layout (core/layout.ts), each with one thing wrong. */
describe('corrupt stored records: a 500 that shows nothing of them', () => {
  const put = (Item: Record<string, unknown>) =>
    table.client.send(new PutCommand({ TableName: table.tableName, Item }));
  /** A version as the import makes them. */
  const V = startVersion();
  const risk = (customerId: number, id = 1) => ({
    id: BigInt(id),
    customer_id: BigInt(customerId),
    type: { value: 1n, description: 'Complete Name' },
    value: 'Corruptus Maximus',
    grade: 1n,
  });
  /** A customer's item as the import writes it: its fields, its assessments, the version. */
  const stored = (id: number, assessments = [risk(id)]): Record<string, unknown> => ({
    pk: `CUS#${id}`,
    sk: 'CUS',
    ...(parseExactJson(stringifyExactJson(customer({ id }))) as Record<string, unknown>),
    assessment_risk: { value: 0n, description: 'Low Risk' },
    last_transaction_datetime: '2023-09-15T10:01:02Z',
    customer_risk_assessments: assessments,
    v: V,
  });
  const expectInternal = async (entity: 'transaction' | 'customer', id: string) => {
    const r = await get(entity, id);
    expect(r.status).toBe(500);
    expect(r.body).toBe('{"message":"Internal server error","data":null}');
  };

  test('the stored form used below is valid', async () => {
    await put(stored(170));
    expect((await get('customer', '170')).status).toBe(200);
  });

  test('a customer missing fields', async () => {
    await put({
      pk: 'CUS#171',
      sk: 'CUS',
      id: 171n,
      first_name: 'Corruptus',
      email: 'corruptus@example.test',
      tin: 'TIN-SECRET-171',
      v: V,
    });
    await expectInternal('customer', '171');
  });

  test.each([
    ['email removed', (c: Record<string, unknown>) => void delete c.email],
    ['tin stored as a number', (c: Record<string, unknown>) => void (c.tin = 123456789n)],
    [
      'a stored time in display form',
      (c: Record<string, unknown>) => void (c.last_transaction_datetime = '2023-09-15 10:01:02'),
    ],
    [
      'assessment_risk without its description',
      (c: Record<string, unknown>) => void (c.assessment_risk = { value: 0n }),
    ],
    [
      'an attribute the SPEC does not know',
      (c: Record<string, unknown>) => void (c.password = 'hunter2'),
    ],
    ['a non-integer number', (c: Record<string, unknown>) => void (c.assessment_score = 1.5)],
    // SPEC 6: a file key under another field's prefix is never signed, whoever wrote it.
    [
      "an ID photo key under the signatures' prefix",
      (c: Record<string, unknown>) => void (c.id_photo = 'signatures/1.png'),
    ],
    // DynamoDB types no record stores: refused while the item is read (attribute-values.ts).
    ['a string set', (c: Record<string, unknown>) => void (c.tin = new Set(['TIN-SECRET-172']))],
    ['binary', (c: Record<string, unknown>) => void (c.sss = new Uint8Array([1, 7, 2]))],
    [
      'no list of risk assessments',
      (c: Record<string, unknown>) => void delete c.customer_risk_assessments,
    ],
  ])('a customer with %s', async (_name, corrupt) => {
    const item = stored(172);
    corrupt(item);
    await put(item);
    await expectInternal('customer', '172');
  });

  test("a risk assessment missing fields, or another customer's", async () => {
    const { grade: _grade, ...withoutGrade } = risk(173);
    await put(stored(173, [withoutGrade as never]));
    await expectInternal('customer', '173');
    await put(stored(174, [{ ...risk(174), customer_id: 999n }]));
    await expectInternal('customer', '174');
  });

  test("a transaction whose signature names a customer's ID photo: a 500, never a link", async () => {
    await importLines([line('transaction', transaction({ id: 176 }))]);
    const key = { pk: 'TXN#176', sk: 'TXN' };
    const item = (await table.client.send(new GetCommand({ TableName: table.tableName, Key: key })))
      .Item!;
    await put({ ...item, signature: 'id-photos/customer-1.jpg' });
    await expectInternal('transaction', '176');
  });

  test('a currency line whose rate is stored as a number', async () => {
    await importLines([line('transaction', transaction({ id: 175 }))]);
    const key = { pk: 'TXN#175', sk: 'TXN' };
    const item = (await table.client.send(new GetCommand({ TableName: table.tableName, Key: key })))
      .Item!;
    const [first] = item.transaction_currencies as Record<string, unknown>[];
    await put({ ...item, transaction_currencies: [{ ...first, rate: 60.75 }] });
    await expectInternal('transaction', '175');
  });

  test("a record stored under another id's key: a 500, never the other record", async () => {
    // Customer 177's item, holding customer 176 whole and valid.
    await put({ ...stored(176), pk: 'CUS#177' });
    await expectInternal('customer', '177');
  });

  test('a tombstone is no record: 404', async () => {
    await put({ pk: 'CUS#178', sk: 'CUS', v: V, deleted: true });
    expect((await get('customer', '178')).json).toEqual({
      message: 'Customer not found',
      data: null,
    });
  });
});
