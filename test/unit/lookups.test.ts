/**
 * SPEC 10's matching as the index keys carry it (core/lookups.ts): names and identifiers
 * normalised as written, the keys a record's item carries, and what the import warns of.
 */
import {
  INDEX_ATTRIBUTES as A,
  indexKeysOf,
  lookupWarnings,
  namePrefix,
} from '../../core/lookups.ts';
import { normaliseIdentifier, normaliseName } from '../../core/matching.ts';

const customer = (fields: Record<string, unknown>) => ({
  id: 42n,
  first_name: 'Juan',
  last_name: 'Dela Cruz',
  tin: null,
  sss: null,
  id_no: null,
  ...fields,
});

test.each([
  ['De la Cruz', 'DELA CRUZ', 'Dela-Cruz', 'dela cruz', 'Délà  Crúz'],
  ['Peña', 'PENA', 'Pena', 'PEÑA'],
  // Lower-cased a character at a time, the final sigma as sigma: one name however written.
  ['ΠΑΠΑΣ ΓΕΩΡΓΙΟΥ', 'Παπασγεωργιου', 'παπας γεωργιου'],
  ['İnan', 'inan', 'INAN'],
  ['Ｓａｎｔｏｓ', 'Santos'],
])('one name: %s', (...forms) => {
  expect(new Set(forms.map(normaliseName)).size).toBe(1);
});

test('identifiers keep letters and digits, upper-cased, nothing else', () => {
  expect(normaliseIdentifier('123-456-789-000')).toBe('123456789000');
  expect(normaliseIdentifier(' p-1234567a ')).toBe('P1234567A');
  expect(normaliseIdentifier('--')).toBe('');
});

test("a customer's keys: a TIN by its first 9 and whole, names in their sort key", () => {
  const keys = indexKeysOf('customer', customer({ tin: '123-456-789-000', sss: '34-1234567-8' }));
  expect(keys).toEqual({
    [A.tin]: '123456789',
    [A.tinWhole]: '123456789000',
    [A.sss]: '3412345678',
    [A.lastName]: 'delacruz',
    [A.name]: 'delacruz#juan#0000000000000042',
  });
  // Under 9 letters and digits no TIN lookup can find it: not in the index.
  expect(indexKeysOf('customer', customer({ tin: '1234' }))[A.tin]).toBeUndefined();
  expect(indexKeysOf('customer', customer({ tin: '123456789' }))[A.tin]).toBe('123456789');
});

test('a last name of 200 characters stays whole in the sort key: its lookup finds it', () => {
  const last = '王'.repeat(200);
  const keys = indexKeysOf('customer', customer({ last_name: last, first_name: '王'.repeat(200) }));
  expect(Buffer.byteLength(keys[A.name]!)).toBeLessThanOrEqual(1024);
  expect(keys[A.lastName]).toBe(last);
  expect(keys[A.name]!.startsWith(namePrefix(last, ''))).toBe(true);
  expect(keys[A.name]!.endsWith('#0000000000000042')).toBe(true);
});

test('a value that normalises to nothing or past 200 is not indexed', () => {
  const keys = indexKeysOf('customer', customer({ last_name: '---', id_no: 'X'.repeat(201) }));
  expect([keys[A.lastName], keys[A.idNo]]).toEqual([undefined, undefined]);
});

test('the import warns of shapes, and says plainly when no lookup finds a value', () => {
  expect(lookupWarnings(customer({ tin: '123-456-789-000', sss: '34-1234567-8' }))).toEqual([]);
  expect(lookupWarnings(customer({ tin: 'A'.repeat(201), sss: 'ABC-1', last_name: '.' }))).toEqual([
    ['tin', 'is over 200 letters and digits: kept as given, no lookup finds it by this field'],
    [
      'sss',
      'is not 10 digits once separators are removed: kept as given, and found by its letters and digits',
    ],
    ['last_name', 'has no letter or digit: kept as given, no lookup finds it by this field'],
  ]);
});
