import { BadRequestError } from '../../functions/shared/errors';
import { parsePathId } from '../../functions/shared/ids';

describe('path ids (SPEC 3.3)', () => {
  test.each(['1', '42', '9007199254740991'])('accepts canonical id %s', (raw) => {
    expect(parsePathId(raw, 'transaction')).toBe(BigInt(raw));
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
  ])('rejects %p with a 400 naming the entity', (raw) => {
    expect(() => parsePathId(raw, 'transaction')).toThrow(
      new BadRequestError('Invalid transaction id'),
    );
    expect(() => parsePathId(raw, 'customer')).toThrow(new BadRequestError('Invalid customer id'));
  });

  test('a missing path parameter is a 400', () => {
    expect(() => parsePathId(undefined, 'customer')).toThrow('Invalid customer id');
  });
});
