/**
 * The import counts a record's item exactly only when the bound from its line's length could pass
 * DynamoDB's limit (core/layout.ts itemSizeBound). The bound must never be below the exact count,
 * whatever the text (any Unicode), the numbers and the children.
 */
import fc from 'fast-check';
import { MAX_ID } from '../../core/ids.ts';
import { VERSION_FOR_SIZE, itemOf, itemSize, itemSizeBound } from '../../core/layout.ts';
import { createTimeCodec } from '../../core/times.ts';
import { createLineParser } from '../../import/records.ts';
import { stringifyExactJson } from '../../core/json.ts';
import { customer, transaction } from '../fixtures.ts';

/** A line as the fixtures' `line` writes it, its ids bigints of any size. */
const line = (entity: string, record: object) => stringifyExactJson({ [entity]: record });

const parse = createLineParser(createTimeCodec('Asia/Manila'));
/** Any Unicode, or long runs of the characters UTF-8 makes 3 bytes of a UTF-16 unit (the worst). */
const text = fc.oneof(
  fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }),
  fc.string({
    unit: fc.integer({ min: 0x800, max: 0xd7ff }).map((c) => String.fromCharCode(c)),
    minLength: 200,
    maxLength: 2000,
  }),
);
const id = fc.bigInt({ min: 1n, max: MAX_ID });
const amount = fc
  .tuple(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), fc.integer({ min: 0, max: 99 }))
  .map(([whole, cents]) => `${whole}.${String(cents).padStart(2, '0')}`);

const records = fc.oneof(
  fc
    .record({ id, first: text, last: text, place: text, values: fc.array(text, { maxLength: 20 }) })
    .map(({ id, first, last, place, values }) =>
      line(
        'customer',
        customer({
          id,
          first_name: first,
          last_name: last,
          place_of_birth: place,
          customer_risk_assessments: values.map((value, i) => ({
            id: i + 1,
            customer_id: id,
            type: { value: 1, description: 'Complete Name' },
            value,
            grade: i,
          })),
        }),
      ),
    ),
  fc
    .record({ id, branch: text, amounts: fc.array(fc.tuple(text, amount), { maxLength: 20 }) })
    .map(({ id, branch, amounts }) =>
      line(
        'transaction',
        transaction({
          id,
          branch: { id: 3, name: branch, address: branch },
          transaction_currencies: amounts.map(([currency, value], i) => ({
            id: i + 1,
            currency: `${currency} (USD)`,
            edit_enabled: 0,
            delete_enabled: 1,
            rate: `${value}000`,
            exchange_amount: value,
            receive_amount: value,
            receive_profit_amount: value,
          })),
        }),
      ),
    ),
);

test("no record's item counts more than its line's bound", () => {
  let parsed = 0;
  fc.assert(
    fc.property(records, (json) => {
      const result = parse(json);
      if (!result.ok || result.kind !== 'put') return;
      parsed += 1;
      const size = itemSize(itemOf(result.entity, result.record, VERSION_FOR_SIZE));
      expect(size).toBeLessThanOrEqual(itemSizeBound(result.entity, json.length));
    }),
    { numRuns: 500 },
  );
  // Most runs are records the parser takes: the bound was checked, not skipped.
  expect(parsed).toBeGreaterThan(400);
});
