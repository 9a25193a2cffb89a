/**
 * The store against Amazon's DynamoDB Local, one table: import then GET through the real
 * handlers, re-import, all-or-nothing validation, one request per GET, records at DynamoDB's item
 * limit; then corrupt stored records, read through the real handlers.
 */
import { jest } from '@jest/globals';
import { GetItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { PutCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { parseExactJson, stringifyExactJson } from '../../core/json.ts';
import { InvalidFileError } from '../../import/direct-import.ts';
import { createLineParser } from '../../import/records.ts';
import { ENTITIES, type Entity } from '../../core/entities.ts';
import { MAX_ITEM_BYTES, itemOf, itemSize, priorBytes } from '../../core/layout.ts';
import { VERSION_FOR_SIZE, startVersion } from '../../core/import-version.ts';
import { createTimeCodec } from '../../core/times.ts';
import { currencyLine, customer, line, riskAssessment, transaction } from '../fixtures.ts';
import { get, importLines, runtimeClient, table, useStoreTable } from '../support/store.ts';

useStoreTable();

/** The record as imported, exactly (integers as bigint), with the file fields set aside. */
const exact = (record: Record<string, unknown>, ...fileFields: string[]) => {
  const parsed = parseExactJson(stringifyExactJson(record)) as Record<string, unknown>;
  for (const field of fileFields) delete parsed[field];
  return parsed;
};

type Send = (command: unknown) => Promise<unknown>;

/**
 * Watches the handlers' reads of records (a GetItem of a `TXN#` or `CUS#` key); every other
 * request (the access state's, SPEC 8) goes through as it is.
 */
function watchReads() {
  const real = runtimeClient.send.bind(runtimeClient) as unknown as Send;
  const reads: GetItemCommand[] = [];
  const others: unknown[] = [];
  const isRecordRead = (command: unknown): command is GetItemCommand =>
    command instanceof GetItemCommand && !command.input.Key?.pk?.S?.startsWith('USER#');
  const send = jest.spyOn(runtimeClient, 'send').mockImplementation((async (command: unknown) => {
    if (!isRecordRead(command)) {
      others.push(command);
      return real(command);
    }
    reads.push(command);
    // This GET's access-state request is already out when its record is read: neither waits.
    togetherSeen.push(others.length === reads.length);
    return real(command);
  }) as never);
  const togetherSeen: boolean[] = [];
  return { reads, others, togetherSeen, restore: () => send.mockRestore() };
}

describe('import then GET (SPEC 3 and 6)', () => {
  test('money, rates and receipt numbers survive exactly; nulls, unicode, zeros and 50 lines round-trip', async () => {
    const big = transaction({
      id: 101,
      receipt_no: 9007199254740991,
      total_amount: '12345678901234567890.12',
      total_profit_amount: '0.00',
      branch: { id: 1, name: 'Sucursal Ñandú 東京 😀', address: 'Calle "Ocho", #8\nPiso 2' },
      signature: null,
      attachment: 'attachments/receipt-101.pdf',
      transaction_currencies: Array.from({ length: 50 }, (_, i) => currencyLine(i + 1)),
    });
    const text = line('transaction', big);
    const cust = customer({
      id: 102,
      customer_risk_assessments: [],
      assessment_score: 0,
      last_transaction_datetime: null,
      tin: null,
      id_no: null,
    });
    const { summary, problems } = await importLines([text, line('customer', cust)]);
    expect(problems).toEqual([]);
    expect(summary).toMatchObject({ records: 2, transactions: 1, customers: 1 });

    const t = await get('transaction', '101');
    expect(t.status).toBe(200);
    expect(t.json.message).toBe('Ok');
    expect(t.body).toContain('"total_amount":"12345678901234567890.12"');
    expect(t.body).toContain('"receipt_no":9007199254740991');
    expect(t.json.data.signature).toBeNull();
    expect(String(t.json.data.attachment)).toMatch(
      /^http:\/\/127\.0\.0\.1:9\/test-files\/attachments\/receipt-101\.pdf\?.*X-Amz-Signature=/,
    );
    expect(exact(t.json.data, 'attachment')).toEqual(exact(big, 'attachment'));
    // Field order is the SPEC's, so the JSON reads as documented.
    expect(Object.keys(t.json.data)).toEqual(Object.keys(big));

    const c = await get('customer', '102');
    expect(c.status).toBe(200);
    expect(c.json.data).toEqual(exact(cust));
    expect(Object.keys(c.json.data)).toEqual(Object.keys(cust));
  });

  test('currency lines and risk assessments come back in ascending id order', async () => {
    const ids = [2, 10, 100, 1000];
    await importLines([
      line('transaction', transaction({ id: 110, transaction_currencies: ids.map(currencyLine) })),
      line(
        'customer',
        customer({
          id: 110,
          customer_risk_assessments: ids.map((id) => riskAssessment(110, id, 'v')),
        }),
      ),
    ]);
    const t = await get('transaction', '110');
    expect((t.json.data.transaction_currencies as { id: bigint }[]).map((l) => l.id)).toEqual(
      ids.map(BigInt),
    );
    const c = await get('customer', '110');
    expect((c.json.data.customer_risk_assessments as { id: bigint }[]).map((l) => l.id)).toEqual(
      ids.map(BigInt),
    );
  });

  test('re-import replaces a record as a whole: no stale lines or assessments', async () => {
    await importLines([
      line(
        'transaction',
        transaction({ id: 120, transaction_currencies: [1, 2, 3].map(currencyLine) }),
      ),
      line(
        'customer',
        customer({
          id: 120,
          customer_risk_assessments: [1, 2].map((id) => riskAssessment(120, id, 'v')),
        }),
      ),
    ]);
    const again = await importLines([
      line(
        'transaction',
        transaction({ id: 120, total_amount: '2.00', transaction_currencies: [currencyLine(5)] }),
      ),
      line('customer', customer({ id: 120, first_name: 'Renamed', customer_risk_assessments: [] })),
    ]);
    expect(again.problems).toEqual([]);
    const t = await get('transaction', '120');
    expect(t.json.data.total_amount).toBe('2.00');
    expect((t.json.data.transaction_currencies as { id: bigint }[]).map((l) => l.id)).toEqual([5n]);
    const c = await get('customer', '120');
    expect(c.json.data.first_name).toBe('Renamed');
    expect(c.json.data.customer_risk_assessments).toEqual([]);
  });

  test('a file with any bad line writes nothing and names every bad line', async () => {
    const { error, problems } = await importLines([
      line('transaction', transaction({ id: 130 })),
      line('transaction', transaction({ id: 131, total_amount: '1.5' })),
      '{not json',
      line('customer', customer({ id: 130 })),
      line('customer', customer({ id: 132, email: 'nope' })),
    ]);
    expect(error).toBeInstanceOf(InvalidFileError);
    expect(problems).toEqual([
      expect.stringMatching(/^line 2: transaction\.total_amount: must be a decimal number/),
      'line 3: $: is not valid JSON',
      'line 5: customer.email: must be an e-mail address',
    ]);
    expect((await get('transaction', '130')).status).toBe(404);
    expect((await get('customer', '130')).status).toBe(404);
  });

  test('the same id twice in one file is an error and nothing is written', async () => {
    const { error, problems } = await importLines([
      line('transaction', transaction({ id: 140 })),
      line('customer', customer({ id: 140 })),
      line('transaction', transaction({ id: 140 })),
    ]);
    expect(error).toBeInstanceOf(InvalidFileError);
    expect(problems).toEqual(['line 3: transaction.id: transaction 140 is already on line 1']);
    expect((await get('transaction', '140')).status).toBe(404);
  });

  test('each GET is one round trip: one GetItem and the access-state request, sent together', async () => {
    await importLines([
      line(
        'transaction',
        transaction({
          id: 150,
          transaction_currencies: Array.from({ length: 50 }, (_, i) => currencyLine(i + 1)),
        }),
      ),
    ]);
    const watch = watchReads();
    try {
      expect((await get('transaction', '150')).status).toBe(200);
      expect([watch.reads.length, watch.others.length]).toEqual([1, 1]);
      expect(watch.others[0]).toBeInstanceOf(UpdateItemCommand);
      expect((await get('customer', '999999')).status).toBe(404);
      expect([watch.reads.length, watch.others.length]).toEqual([2, 2]);
      expect(watch.togetherSeen).toEqual([true, true]);
    } finally {
      watch.restore();
    }
  });

  /** A transaction of 200 currency lines with long currency names, `pad` characters more in all. */
  const wide = (id: number, pad: number) =>
    transaction({
      id,
      transaction_currencies: Array.from({ length: 200 }, (_, i) => ({
        ...currencyLine(i + 1),
        currency: `${'W'.repeat(1800 + Math.floor(pad / 200) + (i < pad % 200 ? 1 : 0))} (WID)`,
      })),
    });
  /**
   * Its size as the import counts it (core/layout.ts itemSize), with the most that its item keeps
   * of the items before it (priorBytes).
   */
  const sizeOf = (record: Record<string, unknown>, entity: Entity = 'transaction') => {
    const parsed = createLineParser(createTimeCodec('UTC'))(line(entity, record));
    if (!parsed.ok || parsed.kind !== 'put') throw new Error('over the limit already');
    return (
      itemSize(itemOf(ENTITIES[entity], parsed.record, VERSION_FOR_SIZE)) +
      priorBytes(ENTITIES[entity], VERSION_FOR_SIZE)
    );
  };
  /** Two earlier versions of the record, each naming files whose keys are S3's longest. */
  const longestKeysTwice = async (entity: Entity, id: number) => {
    const longest = (prefix: string) => `${prefix}${'k'.repeat(1024 - prefix.length)}`;
    const record =
      entity === 'transaction'
        ? transaction({
            id,
            signature: longest('signatures/'),
            attachment: longest('attachments/'),
          })
        : customer({ id, id_photo: longest('id-photos/') });
    for (let i = 0; i < 2; i += 1)
      expect((await importLines([line(entity, record)])).problems).toEqual([]);
  };

  test("a record of exactly DynamoDB's item limit is stored whole; a byte more is refused, never cut", async () => {
    // Padded to 409,600 bytes as the import counts them; DynamoDB Local, which enforces the
    // limit as DynamoDB does, must take it whole, over two records whose files it keeps.
    const pad = MAX_ITEM_BYTES - sizeOf(wide(190, 0));
    expect(sizeOf(wide(190, pad))).toBe(MAX_ITEM_BYTES);
    await longestKeysTwice('transaction', 190);
    const fits = await importLines([line('transaction', wide(190, pad))]);
    expect(fits.problems).toEqual([]);
    const t = await get('transaction', '190');
    expect(t.status).toBe(200);
    expect(t.json.data.transaction_currencies).toHaveLength(200);

    const over = await importLines([line('transaction', wide(191, pad + 1))]);
    expect(over.error).toBeInstanceOf(InvalidFileError);
    expect(over.problems).toEqual([
      "line 1: transaction: stored as 401 KB with room for the files of the records it replaces; at most 400 KB (DynamoDB's item limit)",
    ]);
    expect((await get('transaction', '191')).status).toBe(404);
  });

  /**
   * A customer of 1,000 risk assessments (the most a record may have), nested lists of maps with a nested map each, their
   * grades and codes numbers of 1 to 8 digits, most of them negative; their values `pad`
   * characters more in all.
   */
  const negative = (id: number, pad: number) =>
    customer({
      id,
      assessment_score: -987654321,
      customer_risk_assessments: Array.from({ length: 1000 }, (_, i) => ({
        ...riskAssessment(id, i + 1, 'N'),
        type: { value: -i, description: 'T' },
        grade: i % 7 === 0 ? i : -(i * 10007),
        value: 'p'.repeat(1 + Math.floor(pad / 1000) + (i < pad % 1000 ? 1 : 0)),
      })),
    });

  test('negative numbers and nested lists: exactly the limit as the import counts is stored; never counted low', async () => {
    const pad = MAX_ITEM_BYTES - sizeOf(negative(192, 0), 'customer');
    expect(pad).toBeGreaterThan(1000);
    expect(sizeOf(negative(192, pad), 'customer')).toBe(MAX_ITEM_BYTES);
    // DynamoDB Local refuses an item over the limit: taken whole, the count was not low.
    await longestKeysTwice('customer', 192);
    expect((await importLines([line('customer', negative(192, pad))])).problems).toEqual([]);
    const c = await get('customer', '192');
    expect(c.status).toBe(200);
    expect(c.json.data.customer_risk_assessments).toHaveLength(1000);
    const over = await importLines([line('customer', negative(193, pad + 1))]);
    expect(over.problems).toEqual([
      "line 1: customer: stored as 401 KB with room for the files of the records it replaces; at most 400 KB (DynamoDB's item limit)",
    ]);
  });

  test('no such record is a 404 with the SPEC message', async () => {
    expect((await get('transaction', '424242')).json).toEqual({
      message: 'Transaction not found',
      data: null,
    });
    expect((await get('customer', '424242')).json).toEqual({
      message: 'Customer not found',
      data: null,
    });
  });

  test('a corrupt stored record is a 500 that shows nothing of it', async () => {
    await table.client.send(
      new PutCommand({
        TableName: table.tableName,
        Item: { pk: 'TXN#160', sk: 'TXN', id: 160n, total_amount: 1.5 },
      }),
    );
    const r = await get('transaction', '160');
    expect(r.status).toBe(500);
    expect(r.json).toEqual({ message: 'Internal server error', data: null });
  });
});

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
    // DynamoDB types that no record stores are refused while the item is read
    // (functions/sdk/attribute-values.ts).
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
