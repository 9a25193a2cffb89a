import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { fromAttributes, wrapNumber } from '../../functions/sdk/attribute-values.ts';
import { CorruptRecordError } from '../../core/records.ts';
import { ENTITIES, type Entity } from '../../core/entities.ts';
import { itemOf, tombstoneOf } from '../../core/layout.ts';
import { startVersion } from '../../core/import-version.ts';
import { createTimeCodec } from '../../core/times.ts';
import { createLineParser } from '../../import/records.ts';
import { currencyLine, customer, line, sparseCustomer, transaction } from '../fixtures.ts';

const parse = createLineParser(createTimeCodec('UTC'));

function storedItems(entity: Entity, record: Record<string, unknown>) {
  const parsed = parse(line(entity, record));
  if (!parsed.ok || parsed.kind !== 'put') throw new Error('fixture is invalid');
  return [itemOf(ENTITIES[entity], parsed.record, startVersion())];
}

describe('stored items from DynamoDB wire form', () => {
  test.each([
    [
      'a transaction with lines',
      storedItems(
        'transaction',
        transaction({ transaction_currencies: [3, 1, 2].map(currencyLine) }),
      ),
    ],
    ['a customer with assessments', storedItems('customer', customer())],
    ['a customer whose optional fields are null', storedItems('customer', sparseCustomer())],
    ['a tombstone', [tombstoneOf(ENTITIES.customer, 7n, startVersion(), 1_797_282_552)]],
  ])('%s: the same values as the SDK unmarshall gives, integers as bigint', (_name, items) => {
    for (const item of items) {
      const wire = marshall(item) as Record<string, AttributeValue>;
      expect(fromAttributes(wire)).toEqual(unmarshall(wire, { wrapNumbers: wrapNumber }));
      expect(fromAttributes(wire)).toEqual(item);
    }
  });

  test('integers beyond 2^53 keep every digit; other numbers stay numbers, for the record checks to refuse', () => {
    expect(
      fromAttributes({
        big: { N: '12345678901234567890' },
        negative: { N: '-9007199254740993' },
        fraction: { N: '1.5' },
        list: { L: [{ N: '2' }, { S: 'x' }, { BOOL: false }] },
      }),
    ).toEqual({
      big: 12345678901234567890n,
      negative: -9007199254740993n,
      fraction: 1.5,
      list: [2n, 'x', false],
    });
  });

  test('the attributes named to skip (the keys) are left out', () => {
    expect(
      fromAttributes(
        { pk: { S: 'TXN#1' }, sk: { S: 'TXN' }, id: { N: '1' } },
        new Set(['pk', 'sk']),
      ),
    ).toEqual({
      id: 1n,
    });
  });

  test.each<[string, AttributeValue]>([
    ['SS', { SS: ['a'] }],
    ['NS', { NS: ['1'] }],
    ['B', { B: new Uint8Array([1]) }],
    ['BS', { BS: [new Uint8Array([1])] }],
  ])(
    'a %s value, which no record stores, is a corrupt record naming the type only',
    (type, value) => {
      const read = () => fromAttributes({ branch: { M: { name: value } } });
      expect(read).toThrow(CorruptRecordError);
      expect(read).toThrow(`Stored item holds a DynamoDB ${type} value`);
    },
  );

  test('a __proto__ attribute is a corrupt record, not a prototype the record checks would miss', () => {
    const item = JSON.parse('{"id":{"N":"1"},"__proto__":{"M":{"x":{"S":"y"}}}}') as Record<
      string,
      AttributeValue
    >;
    expect(() => fromAttributes(item)).toThrow(CorruptRecordError);
  });
});
