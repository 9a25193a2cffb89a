import fc from 'fast-check';
import { INTEGER_LITERAL, parseExactJson, stringifyExactJson } from '../../core/json.ts';

/** Exact JSON by definition: every integer literal, read from its own digits by a reviver. */
const reference = (text: string): unknown =>
  JSON.parse(text, ((_key: string, value: unknown, context?: { source?: string }) =>
    typeof value === 'number' && context?.source && INTEGER_LITERAL.test(context.source)
      ? BigInt(context.source)
      : value) as Parameters<typeof JSON.parse>[1]);

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

  test('any JSON text reads as the reviver reads it: bigints of any size, fractions, exponents, escapes', () => {
    // JSON text built as text, so that literals such as 1e3, 1.0 or -0 appear as written.
    const text = fc.letrec<{ leaf: string; node: string }>((tie) => ({
      leaf: fc.oneof(
        fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
        fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
        fc.string().map((x) => JSON.stringify(x)),
        fc.constantFrom('1e3', '1E2', '1.0', '-0', 'true', 'false', 'null', '"\\"1.5"', '"9e9"'),
      ),
      node: fc.oneof(
        { depthSize: 'small' },
        tie('leaf'),
        fc.array(tie('node'), { maxLength: 4 }).map((xs) => `[${xs.join(',')}]`),
        fc
          .array(fc.tuple(fc.oneof(fc.string(), fc.constant('__proto__')), tie('node')), {
            maxLength: 4,
          })
          .map((kvs) => `{${kvs.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
      ),
    })).node;
    fc.assert(
      fc.property(text, (t) => {
        expect(parseExactJson(t)).toEqual(reference(t));
      }),
      { numRuns: 1000 },
    );
    // JSON.parse makes `__proto__` an own key: it must stay one, never become the prototype.
    const parsed = parseExactJson('{"__proto__":{"x":1}}') as object;
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(parsed, '__proto__')?.value).toEqual({ x: 1n });
  });
});
