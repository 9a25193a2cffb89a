import { parseCanonicalId } from '../../core/ids';

describe('path ids (SPEC 3.3)', () => {
  test.each(['1', '42', '9007199254740991'])('accepts canonical id %s', (raw) => {
    expect(parseCanonicalId(raw)).toBe(BigInt(raw));
  });

  test.each([
    '0',
    '-1',
    '1.5',
    '1e3',
    '007',
    'abc',
    '',
    ' 1',
    '1 ',
    '+1',
    '0x10',
    '١',
    '9007199254740992',
    '99999999999999999999',
    '1/2',
  ])('rejects %p (the handlers answer it with a 400: test/integration/hostile.test.ts)', (raw) => {
    expect(parseCanonicalId(raw)).toBeUndefined();
  });

  test('a missing path parameter is no id', () => {
    expect(parseCanonicalId(undefined)).toBeUndefined();
  });
});
