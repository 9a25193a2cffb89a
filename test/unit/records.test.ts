import { CUSTOMER, TRANSACTION } from '../../core/entities.ts';
import { createTimeCodec } from '../../core/times.ts';
import { createLineParser } from '../../import/records.ts';
import { customer, line, riskAssessment, transaction } from '../fixtures.ts';

const parse = createLineParser(createTimeCodec('UTC'));
const problemsOf = (text: string): string[] => {
  const parsed = parse(text);
  return parsed.ok ? [] : parsed.problems.map((p) => `${p.path}: ${p.reason}`);
};

describe('import line validation (SPEC 3 and 6)', () => {
  test('valid records pass and come out in stored form, fields in SPEC order', () => {
    const shuffled = Object.fromEntries(Object.entries(transaction()).reverse());
    const parsed = parse(line('transaction', shuffled));
    expect(parsed.ok && parsed.kind).toBe('put');
    if (!parsed.ok || parsed.kind !== 'put') return;
    expect(parsed.entity).toBe(TRANSACTION);
    expect(parsed.id).toBe(1n);
    expect(Object.keys(parsed.record)).toEqual(Object.keys(transaction()));
    expect(parsed.record.created_at).toBe('2023-09-15T10:01:02Z');
    expect(parsed.record.receipt_no).toBe(20230915000123n);
    expect(parse(line('customer', customer())).ok).toBe(true);
  });

  test('a customer without a last transaction keeps null', () => {
    const parsed = parse(line('customer', customer({ last_transaction_datetime: null })));
    expect(
      parsed.ok && parsed.kind === 'put' && parsed.record.last_transaction_datetime,
    ).toBeNull();
  });

  test.each([
    [
      { total_amount: 1250 },
      'transaction.total_amount: must be a decimal number in a string with exactly 2 fraction digits, e.g. "12.50"',
    ],
    [
      { total_amount: '1250.0' },
      'transaction.total_amount: must be a decimal number in a string with exactly 2 fraction digits, e.g. "12.50"',
    ],
    [
      { total_amount: '01.00' },
      'transaction.total_amount: must be a decimal number in a string with exactly 2 fraction digits, e.g. "12.50"',
    ],
    [{ id: 0 }, 'transaction.id: must be an integer from 1 to 9007199254740991'],
    [{ id: 1.5 }, 'transaction.id: must be an integer'],
    [{ id: '1' }, 'transaction.id: must be an integer'],
    [
      { receipt_no: 9007199254740992 },
      'transaction.receipt_no: must be an integer from 1 to 9007199254740991',
    ],
    [
      { signature: 'has space.png' },
      'transaction.signature: must begin with signatures/, where signature files are kept: the function that serves this record may read no other key',
    ],
    [
      { attachment: '/attachments/x.png' },
      'transaction.attachment: must begin with attachments/, where attachment files are kept: the function that serves this record may read no other key',
    ],
    // SPEC 6: each field under its own prefix, so a transaction never hands out an ID photo.
    [
      { signature: 'id-photos/1.jpg' },
      'transaction.signature: must begin with signatures/, where signature files are kept: the function that serves this record may read no other key',
    ],
    [
      { attachment: 'signatures/1.png' },
      'transaction.attachment: must begin with attachments/, where attachment files are kept: the function that serves this record may read no other key',
    ],
    [
      { signature: `signatures/${'é'.repeat(508)}` },
      "transaction.signature: must be at most 1024 bytes of UTF-8 (S3's limit)",
    ],
    [
      { signature: 'signatures/../secrets/x.png' },
      'transaction.signature: must not have "." or ".." between slashes: HTTP clients rewrite those, so the link would not open',
    ],
    [
      { signature: 'signatures/\ud800.png' },
      'transaction.signature: must be text that UTF-8 can hold',
    ],
    [{ signature: 5 }, 'transaction.signature: must be an S3 object key (a string) or null'],
    [
      { created_at: '2023-09-15T10:01:02Z' },
      'transaction.created_at: is in the wrong format: must be "YYYY-MM-DD HH:MM:SS", the wall time in the display time zone (UTC), e.g. "2023-09-15 10:01:02"',
    ],
    [{ branch: { id: 1, name: 'x' } }, 'transaction.branch.address: is required'],
    [{ extra: 1 }, 'transaction.extra: is not a known field'],
    [
      { customer: { id: 1, first_name: 'x', email: 'not-an-email' } },
      'transaction.customer.email: must be an e-mail address',
    ],
    [{ purpose: { value: 6 } }, 'transaction.purpose.description: is required'],
    [{ transaction_currencies: {} }, 'transaction.transaction_currencies: must be an array'],
  ])('transaction %j is refused with the field path and reason', (override, problem) => {
    expect(problemsOf(line('transaction', transaction(override)))).toEqual([problem]);
  });

  test('currency lines: formats per field; an id twice names both positions', () => {
    const base = (transaction().transaction_currencies as Record<string, unknown>[])[0]!;
    const lines = [
      { ...base, id: 2, rate: '56.125' },
      { ...base, id: 1 },
      { ...base, id: 2, currency: 'USD', edit_enabled: 2 },
    ];
    expect(problemsOf(line('transaction', transaction({ transaction_currencies: lines })))).toEqual(
      [
        'transaction.transaction_currencies[0].rate: must be a decimal number in a string with exactly 5 fraction digits, e.g. "12.50000"',
        'transaction.transaction_currencies[2].currency: must be a name then a code, e.g. "US Dollar (USD)"',
        'transaction.transaction_currencies[2].edit_enabled: must be an integer from 0 to 1',
        'transaction.transaction_currencies[2].id: must be unique: transaction_currencies[0] has the id 2 too',
      ],
    );
  });

  // Issue 30: a time in another format was told it "must exist in the display time zone", which
  // reads as a daylight-saving problem. That is said only of a real time the zone skips.
  test.each([
    ['2023-09-15T10:01:02Z', 'Asia/Manila', 'format'],
    ['2023-09-15 10:01', 'UTC', 'format'],
    ['2023-9-15 10:01:02', 'UTC', 'format'],
    ['15/09/2023 10:01:02', 'UTC', 'format'],
    [1694772062, 'UTC', 'format'],
    ['2023-02-30 10:01:02', 'UTC', 'calendar'],
    ['2023-09-15 24:00:00', 'America/New_York', 'calendar'],
    ['2023-03-12 02:30:00', 'America/New_York', 'skipped'],
  ])('created_at %j in %s: %s', (createdAt, zone, kind) => {
    const problems = createLineParser(createTimeCodec(zone))(
      line('transaction', transaction({ created_at: createdAt })),
    );
    const reasons = {
      format: `transaction.created_at: is in the wrong format: must be "YYYY-MM-DD HH:MM:SS", the wall time in the display time zone (${zone}), e.g. "2023-09-15 10:01:02"`,
      calendar:
        'transaction.created_at: is not a date and time of the calendar: no such day, or no such time of day',
      skipped: `transaction.created_at: does not exist in the display time zone (${zone}): its clocks skip it (a daylight-saving change)`,
    };
    expect(problems.ok ? [] : problems.problems.map((p) => `${p.path}: ${p.reason}`)).toEqual([
      reasons[kind as keyof typeof reasons],
    ]);
  });

  test("a customer's last transaction time gets the same reasons", () => {
    expect(
      problemsOf(line('customer', customer({ last_transaction_datetime: '2023-09-15' }))),
    ).toEqual([
      'customer.last_transaction_datetime: is in the wrong format: must be "YYYY-MM-DD HH:MM:SS", the wall time in the display time zone (UTC), e.g. "2023-09-15 10:01:02"',
    ]);
  });

  test('children in any order are accepted and stored in ascending id order', () => {
    const ids = [30, 2, 1000, 7];
    const parsed = parse(
      line(
        'customer',
        customer({
          id: 9,
          customer_risk_assessments: ids.map((id) => riskAssessment(9, id)),
        }),
      ),
    );
    if (!parsed.ok || parsed.kind !== 'put') throw new Error('refused');
    const stored = parsed.record.customer_risk_assessments as { id: bigint; value: string }[];
    expect(stored.map((r) => [r.id, r.value])).toEqual([
      [2n, 'v2'],
      [7n, 'v7'],
      [30n, 'v30'],
      [1000n, 'v1000'],
    ]);
  });

  test("file keys: any key S3 stores under its field's prefix", () => {
    for (const key of [
      'signatures/123/sig file.png',
      'signatures//double//slash',
      `signatures/${'é'.repeat(506)}`, // 1023 bytes
      'signatures/.hidden/..png',
    ])
      expect(problemsOf(line('transaction', transaction({ signature: key })))).toEqual([]);
    const attachment = 'attachments/a+b%20c#d?e=f&g.pdf';
    expect(problemsOf(line('transaction', transaction({ attachment })))).toEqual([]);
    const idPhoto = 'id-photos/José Ñandú/写真 صورة.jpg';
    expect(problemsOf(line('customer', customer({ id_photo: idPhoto })))).toEqual([]);
    expect(problemsOf(line('customer', customer({ id_photo: 'signatures/1.png' })))).toEqual([
      'customer.id_photo: must begin with id-photos/, where id_photo files are kept: the function that serves this record may read no other key',
    ]);
  });

  test('delete lines', () => {
    expect(parse('{"delete":{"customer":12}}')).toEqual({
      ok: true,
      kind: 'delete',
      entity: CUSTOMER,
      id: 12n,
    });
    expect(problemsOf('{"delete":{"transaction":0}}')).toEqual([
      'delete.transaction: must be an integer from 1 to 9007199254740991',
    ]);
    expect(problemsOf('{"delete":{"branch":1}}')).toEqual([
      'delete: must be an object with one key, "transaction" or "customer", and the id',
    ]);
    expect(problemsOf('{"delete":{"transaction":1,"customer":1}}')).toEqual([
      'delete: must be an object with one key, "transaction" or "customer", and the id',
    ]);
  });

  test('customer fields: nullable strings, date of birth, owned risk assessments', () => {
    const problems = problemsOf(
      line(
        'customer',
        customer({
          tin: 123,
          date_of_birth: '1990-02-30T00:00:00.000000Z',
          customer_risk_assessments: [
            { id: 1, customer_id: 8, type: { value: 1, description: 'x' }, value: 'v', grade: 1 },
          ],
        }),
      ),
    );
    expect(problems).toEqual([
      'customer.tin: must be a string',
      'customer.date_of_birth: is not a date and time of the calendar: no such day, or no such time of day',
      "customer.customer_risk_assessments[0].customer_id: must equal the customer's id",
    ]);
  });

  test.each([
    [
      '1990-05-14',
      'must be an ISO 8601 UTC time with microseconds, e.g. "1990-05-14T00:00:00.000000Z"',
    ],
    [
      '1990-02-29T00:00:00.000000Z',
      'is not a date and time of the calendar: no such day, or no such time of day',
    ],
    [
      '1990-04-31T00:00:00.000000Z',
      'is not a date and time of the calendar: no such day, or no such time of day',
    ],
    [
      '1990-05-14T24:00:00.000000Z',
      'is not a date and time of the calendar: no such day, or no such time of day',
    ],
  ])('a date of birth %p: %s, quoting no value', (date_of_birth, reason) => {
    expect(problemsOf(line('customer', customer({ date_of_birth })))).toEqual([
      `customer.date_of_birth: ${reason}`,
    ]);
  });

  test.each([
    ['not json', '$: is not valid JSON'],
    ['[]', '$: must be an object with one key, "transaction", "customer" or "delete"'],
    [
      '{"transaction":{},"customer":{}}',
      '$: must be an object with one key, "transaction", "customer" or "delete"',
    ],
    ['{"branch":{}}', '$: must be an object with one key, "transaction", "customer" or "delete"'],
    ['{"transaction":null}', 'transaction: must be an object'],
  ])('line %p is refused as a whole', (text, problem) => {
    expect(problemsOf(text)).toEqual([problem]);
  });

  test('a JSON error never quotes the line, which may hold personal data', () => {
    expect(problemsOf('{"customer":{"tin":"123-SECRET"')).toEqual(['$: is not valid JSON']);
  });

  test('deep nesting is a problem, not a crash', () => {
    expect(problemsOf('['.repeat(100_000) + ']'.repeat(100_000))).toHaveLength(1);
  });
});
