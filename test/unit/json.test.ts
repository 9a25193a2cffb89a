import { parseExactJson, stringifyExactJson } from '../../core/json';

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
});
