import { idProblem, parseCanonicalId } from '../../core/ids.ts';

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

describe('why a command-line id is refused (the API keeps its fixed 400 message)', () => {
  test('leading zeros: the id as it should be written', () => {
    expect(idProblem('007')).toBe('ids are written without leading zeros: 7, not 007');
  });
  test.each(['0', '000', '-1', 'abc', '1.5', ''])('%p: positive whole numbers', (raw) => {
    expect(idProblem(raw)).toMatch(/positive whole numbers/);
  });
  test('past 2^53-1: the largest id', () => {
    expect(idProblem('9007199254740992')).toBe('ids go up to 9007199254740991');
  });
  test('a canonical id has no problem', () => {
    expect(idProblem('42')).toBeUndefined();
  });
});
