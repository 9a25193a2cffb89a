import fc from 'fast-check';
import { parseExactJson, parseStoredExactJson, stringifyExactJson } from '../../core/json';

describe('exact JSON', () => {
  test('integer literals become bigints read from their digits', () => {
    expect(parseExactJson('{"a":9007199254740993,"b":[0,-7]}')).toEqual({
      a: 9007199254740993n,
      b: [0n, -7n],
    });
  });

  test('non-integer numbers stay numbers, to be rejected where an integer or decimal string is due', () => {
    expect(parseExactJson('[1.5,1e3,1.0]')).toEqual([1.5, 1000, 1]);
  });

  test('bigints are written digit for digit and strings untouched', () => {
    expect(
      stringifyExactJson({ n: 9007199254740993n, s: '12345678901234567890.12', z: null }),
    ).toBe('{"n":9007199254740993,"s":"12345678901234567890.12","z":null}');
  });

  test('what stringifyExactJson wrote, parseStoredExactJson reads as parseExactJson does: bigints of any size, numbers, text', () => {
    const value = fc.letrec((tie) => ({
      leaf: fc.oneof(
        fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.integer(),
        fc.string(),
        fc.boolean(),
        fc.constant(null),
      ),
      node: fc.oneof(
        { depthSize: 'small' },
        tie('leaf'),
        fc.array(tie('node'), { maxLength: 4 }),
        fc.dictionary(fc.string(), tie('node'), { maxKeys: 4 }),
      ),
    })).node;
    fc.assert(
      fc.property(value, (v) => {
        const text = stringifyExactJson(v);
        expect(parseStoredExactJson(text)).toEqual(parseExactJson(text));
      }),
      { numRuns: 500 },
    );
    expect(parseStoredExactJson('{"a":9007199254740993,"b":[1,2.5]}')).toEqual({
      a: 9007199254740993n,
      b: [1n, 2.5],
    });
  });
});
