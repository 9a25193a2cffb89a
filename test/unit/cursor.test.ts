/**
 * The lookup cursor (SPEC 10): opaque, authenticated, bound to its lookup and good for 24 hours.
 * Any byte changed, another lookup's cursor or an expired one is the same 400.
 */
import fc from 'fast-check';
import { BadRequestError } from '../../functions/shared/errors.ts';
import { CURSOR_LIFETIME_SECONDS, createCursorCodec } from '../../functions/shared/cursor.ts';
import { parseQuery } from '../../functions/shared/lookup-requests.ts';

const SECRET = 'unit-test-cursor-secret-0123456789abcdef';
/** What a cursor holds: the index sort key the next page goes on after. */
const START = '2023-09-15T02:01:02Z#0000000000000012';
const LOOKUP = 'GET /transactions\nreceipt_no\n20230915000123';

let clock = Date.UTC(2026, 10, 28);
const codec = createCursorCodec(SECRET, () => clock);
const refused =
  (cursor: string, lookup = LOOKUP) =>
  () =>
    codec.open(cursor, lookup);
const INVALID = new BadRequestError('Invalid cursor: not a cursor of this lookup, or expired');

test('a cursor opens to the start key it sealed, for its own lookup, and shows none of it', () => {
  const cursor = codec.seal(START, LOOKUP);
  expect(codec.open(cursor, LOOKUP)).toEqual(START);
  expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
  const bytes = Buffer.from(cursor, 'base64url').toString('latin1');
  expect(bytes).not.toContain('2023-09-15');
  expect(bytes).not.toContain('0000000000000012');
  // Two seals of the same key differ (a fresh nonce each): nothing repeats to compare.
  expect(codec.seal(START, LOOKUP)).not.toBe(cursor);
});

test('any byte changed: 400', () => {
  const cursor = codec.seal(START, LOOKUP);
  const bytes = Buffer.from(cursor, 'base64url');
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: bytes.length - 1 }),
      fc.integer({ min: 1, max: 255 }),
      (at, flip) => {
        const altered = Buffer.from(bytes);
        altered[at] = altered[at]! ^ flip;
        expect(refused(altered.toString('base64url'))).toThrow(INVALID);
      },
    ),
    { numRuns: 500 },
  );
});

test('any text that is not a cursor, cut or lengthened: 400', () => {
  const cursor = codec.seal(START, LOOKUP);
  fc.assert(
    fc.property(fc.string({ maxLength: 300 }), (text) => {
      fc.pre(text !== cursor);
      expect(refused(text)).toThrow(INVALID);
    }),
  );
  expect(refused(cursor.slice(0, -1))).toThrow(INVALID);
  expect(refused(`${cursor}A`)).toThrow(INVALID);
});

test("another lookup's cursor, or one sealed with another secret: 400", () => {
  fc.assert(
    fc.property(fc.string({ minLength: 1 }), (other) => {
      fc.pre(other !== LOOKUP);
      expect(refused(codec.seal(START, other))).toThrow(INVALID);
    }),
  );
  const stranger = createCursorCodec(`${SECRET}!`, () => clock);
  expect(refused(stranger.seal(START, LOOKUP))).toThrow(INVALID);
});

test('good for 24 hours after it was issued, then 400', () => {
  const issued = clock;
  const cursor = codec.seal(START, LOOKUP);
  try {
    clock = issued + CURSOR_LIFETIME_SECONDS * 1000;
    expect(codec.open(cursor, LOOKUP)).toEqual(START);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10 * CURSOR_LIFETIME_SECONDS }), (late) => {
        clock = issued + (CURSOR_LIFETIME_SECONDS + late) * 1000;
        expect(refused(cursor)).toThrow(INVALID);
      }),
    );
  } finally {
    clock = issued;
  }
});

test('the longest sort key DynamoDB keeps (1,024 bytes) seals into a cursor a lookup takes', () => {
  const longest = `${'ñ'.repeat(254)}#${'a'.repeat(490)}#0000000000000012`;
  expect(Buffer.byteLength(longest)).toBeLessThanOrEqual(1024);
  const cursor = codec.seal(longest, LOOKUP);
  expect(cursor.length).toBeLessThanOrEqual(2048);
  expect(codec.open(cursor, LOOKUP)).toBe(longest);
  expect(parseQuery(`cursor=${cursor}`, ['cursor']).get('cursor')).toBe(cursor);
});
