/**
 * What the staff page says and decides in words: each SPEC error (staff-app/error-words.ts), what
 * the search field finds (staff-app/search.ts), what a printed record says of its printing, and
 * the business's name it carries (one rule for a stage's setting and npm start's).
 */
import { staffAppPages } from '../../local/gateway/staff-app-pages.ts';
import { localBusinessName } from '../../local/rig/start-settings.ts';
import { claimsOf, mayReadCustomers, signedInAs } from '../../staff-app/claims.ts';
import { DEFAULT_BUSINESS_NAME, isBusinessName } from '../../stage/settings.ts';
import { listRefusalFor, refusalFor } from '../../staff-app/error-words.ts';
import { printedTime, wallTime } from '../../staff-app/times.ts';
import { parseSearch, type Held } from '../../staff-app/search.ts';

test.each([
  [403, 'customer', null, 'Your account may not read customers.'],
  [404, 'transaction', null, 'There is no transaction with that id.'],
  [404, 'customer', null, 'There is no customer with that id.'],
  [400, 'transaction', null, 'That is not a transaction id: ids are whole numbers from 1.'],
  [429, 'transaction', '7', 'Too many lookups for now. Try again in 7 seconds.'],
  [429, 'customer', '1', 'Too many lookups for now. Try again in 1 second.'],
  [429, 'customer', null, 'Too many lookups for now. Try again in a minute.'],
  [503, 'transaction', '2', 'The service is busy or unreachable. Try again in 2 seconds.'],
  [
    500,
    'transaction',
    null,
    'Something went wrong on our side; the lookup was not made. Try again later.',
  ],
] as const)('%i for a %s (Retry-After %s): %s', (status, kind, retryAfter, words) => {
  expect(refusalFor(status, kind, retryAfter)).toEqual({ words, signInAgain: false });
});

test('401 sends the user back to sign-in, whatever was looked up', () => {
  for (const kind of ['transaction', 'customer'] as const)
    expect(refusalFor(401, kind, null)).toEqual({
      words: 'Your session has ended: sign in again.',
      signInAgain: true,
    });
});

test('a Retry-After that is not whole seconds is not repeated to the user', () => {
  expect(refusalFor(429, 'customer', 'Wed, 21 Oct 2026 07:28:00 GMT').words).toBe(
    'Too many lookups for now. Try again in a minute.',
  );
});

describe("a search's or list's refusals (SPEC 10)", () => {
  test.each([
    [403, 'customers', undefined, 'Your account may not search customers.'],
    [
      403,
      'customer-transactions',
      undefined,
      'Your account may not read customers or their transactions.',
    ],
    [403, 'receipt', undefined, 'Your account may not read transactions.'],
    [
      404,
      'customer-transactions',
      'Customer not found',
      'There is no customer with that id, and no transaction names it.',
    ],
    [
      400,
      'customers',
      'Invalid cursor: not a cursor of this lookup, or expired',
      'These results are too old to go on with: search again.',
    ],
    [
      400,
      'customers',
      'Invalid tin: give at least 9 letters and digits',
      "A TIN has at least 9 digits (the TIN card's); dashes and spaces do not count.",
    ],
    [
      400,
      'receipt',
      'Invalid receipt_no: must be a whole number',
      'That search was not accepted: check what you typed, then search again.',
    ],
  ] as const)('%i for %s (%s): %s', (status, kind, message, words) => {
    expect(listRefusalFor(status, kind, null, message)).toEqual({ words, signInAgain: false });
  });

  test('429 and 503 say when to try again; 401 signs out; the message is never repeated', () => {
    expect(listRefusalFor(429, 'customers', '12').words).toBe(
      'Too many lookups for now. Try again in 12 seconds.',
    );
    expect(listRefusalFor(503, 'receipt', null).words).toBe(
      'The service is busy or unreachable. Try again in a minute.',
    );
    expect(listRefusalFor(401, 'customer-transactions', null)).toEqual({
      words: 'Your session has ended: sign in again.',
      signInAgain: true,
    });
    expect(listRefusalFor(500, 'customers', null, 'Internal server error').words).toBe(
      'Something went wrong on our side; the lookup was not made. Try again later.',
    );
  });
});

describe('what the search field finds (staff-app/search.ts)', () => {
  const found = (raw: string, held: Held = 'receipt-or-name', reader = true) => {
    const parsed = parseSearch(raw, held, reader);
    return 'search' in parsed ? parsed.search : parsed.problem;
  };

  test('digits only are a receipt number, for everyone: never an id', () => {
    for (const reader of [true, false]) {
      expect(found('20230915000123', 'receipt-or-name', reader)).toEqual({
        route: '/transactions',
        kind: 'receipt',
        query: { receipt_no: '20230915000123' },
      });
      expect(found(' 20230915 000123 ', 'receipt-or-name', reader)).toMatchObject({
        query: { receipt_no: '20230915000123' },
      });
      expect(found('1', 'receipt-or-name', reader)).toMatchObject({ kind: 'receipt' });
    }
    for (const bad of ['0', '007', '9007199254740992'])
      expect(found(bad)).toBe(
        'That is not a receipt number: receipt numbers are whole numbers from 1 to 9007199254740991, with no leading zero.',
      );
  });

  test('a teller holds receipts only: anything else is said in words, whatever is chosen', () => {
    expect(found('Dela Cruz, Juan', 'receipt-or-name', false)).toBe(
      'A receipt number is digits only, e.g. 20230915000123. Your account may not search customers.',
    );
    expect(found('123-456-789', 'tin', false)).toMatch(/^A receipt number is digits only/);
    expect(found('', 'receipt-or-name', false)).toBe('Type the receipt number.');
  });

  test('"last name, first name": the first name optional, a beginning; spaces kept as typed', () => {
    expect(found('Dela Cruz, Ju')).toEqual({
      route: '/customers',
      kind: 'name',
      query: { last_name: 'Dela Cruz', first_name: 'Ju' },
    });
    expect(found('  Peña ')).toEqual({
      route: '/customers',
      kind: 'name',
      query: { last_name: 'Peña' },
    });
    expect(found('Dela Cruz,')).toMatchObject({ query: { last_name: 'Dela Cruz' } });
    expect(found(', Juan')).toBe(
      'Type the last name first, then a comma and the first name: Dela Cruz, Juan.',
    );
    expect(found('Dela Cruz, --')).toBe(
      'After the comma, type the first name or its beginning, or nothing.',
    );
  });

  test('a TIN, SSS or ID number is what the user says they hold; digits mixed in otherwise are asked about', () => {
    expect(found('123-456-789', 'tin')).toEqual({
      route: '/customers',
      kind: 'tin',
      query: { tin: '123-456-789' },
    });
    // Digits only, held as a TIN: a TIN, not a receipt.
    expect(found('123456789000', 'tin')).toMatchObject({ kind: 'tin' });
    expect(found('123-456-78', 'tin')).toBe(
      "A TIN has at least 9 digits (the TIN card's); dashes and spaces do not count.",
    );
    expect(found('34-5678901-2', 'sss')).toMatchObject({
      kind: 'sss',
      query: { sss: '34-5678901-2' },
    });
    expect(found('N01-23-456789', 'id_no')).toMatchObject({ kind: 'id_no' });
    expect(found('--', 'sss')).toBe('Type the SSS number: it has letters or digits.');
    expect(found('123-456-789')).toMatch(
      /^That is neither a receipt number \(digits only\) nor a name/,
    );
    expect(found('P1234567A')).toMatch(/choose it under "What you hold"\.$/);
  });

  test('empty, or over 200 characters, is said before anything is sent', () => {
    expect(found('   ')).toBe(
      'Type what you hold: a receipt number, a name, a TIN, an SSS number or an ID number.',
    );
    expect(found('a'.repeat(201))).toBe('That is too long: a search takes at most 200 characters.');
    expect(found('ñ'.repeat(200))).toMatchObject({ kind: 'name' });
  });
});

describe('the printed record: its time and its signer', () => {
  test('a time is wall time in the display zone, saying which, as the API writes times', () => {
    const at = new Date('2026-01-31T16:05:09Z');
    expect(wallTime(at, 'Asia/Manila')).toBe('2026-02-01 00:05:09');
    expect(wallTime(at, 'UTC')).toBe('2026-01-31 16:05:09');
    const terms = { displayTimeZone: 'Asia/Manila', currency: 'PHP', businessName: 'X' };
    expect(printedTime(terms, at)).toBe('2026-02-01 00:05:09 (Asia/Manila)');
  });

  const token = (claims: Record<string, unknown>) =>
    `e30.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.sig`;

  test('who printed it: the e-mail, else the username, else what was typed', () => {
    const id = claimsOf(token({ email: 'María.Peña@example.com' }));
    const access = claimsOf(
      token({ username: 'c0ffee-id', 'cognito:groups': ['customer-readers'] }),
    );
    expect(signedInAs(id, access, 'typed@example.com')).toBe('María.Peña@example.com');
    expect(signedInAs(undefined, access, 'typed@example.com')).toBe('c0ffee-id');
    expect(signedInAs(claimsOf('not a token'), undefined, 'typed@example.com')).toBe(
      'typed@example.com',
    );
    expect(mayReadCustomers(access)).toBe(true);
    expect(mayReadCustomers(claimsOf(token({ 'cognito:groups': ['other'] })))).toBe(false);
    expect(mayReadCustomers(claimsOf(token({})))).toBe(false);
  });
});

describe("the business's name: one rule for a stage and for npm start", () => {
  test.each([
    ['the default', 'accepted', 'Currency Exchange'],
    ['any characters on one line', 'accepted', 'Makati Forex & Remittance Corp.'],
    ['100 characters', 'accepted', 'Ñ'.repeat(100)],
    ['empty', 'refused', ''],
    ['a space first', 'refused', ' Currency Exchange'],
    ['a space last', 'refused', 'Currency Exchange '],
    ['a line feed', 'refused', 'Currency\nExchange'],
    ['a line separator', 'refused', 'Currency\u2028Exchange'],
    ['101 characters', 'refused', 'x'.repeat(101)],
  ])('%s: %s', (_what, verdict, name) => {
    expect(isBusinessName(name)).toBe(verdict === 'accepted');
  });

  test('BUSINESS_NAME of npm start: the default when unset, refused in one line when not a name', () => {
    expect(localBusinessName({})).toBe(DEFAULT_BUSINESS_NAME);
    expect(localBusinessName({ BUSINESS_NAME: '' })).toBe(DEFAULT_BUSINESS_NAME);
    expect(localBusinessName({ BUSINESS_NAME: 'Makati Forex Corp.' })).toBe('Makati Forex Corp.');
    expect(() => localBusinessName({ BUSINESS_NAME: 'Two\nlines' })).toThrow(
      'BUSINESS_NAME must be a name of 1 to 100 characters on one line, not starting or ending with a space, got: "Two\\nlines"',
    );
  });

  test("the local gateway's config.json gives the page the name it was started with", async () => {
    const pages = staffAppPages(
      {
        cognitoEndpoint: 'http://127.0.0.1:9229',
        userPoolClientId: 'client',
        region: 'us-east-1',
        filesOrigin: 'http://127.0.0.1:4569',
        issuer: 'Currency Exchange (local)',
        displayTimeZone: 'Asia/Manila',
        currency: 'PHP',
        businessName: 'Makati Forex Corp.',
      },
      () => 'http://127.0.0.1:3000',
    );
    const config = JSON.parse(String(await pages('/app/config.json')!.body())) as Record<
      string,
      unknown
    >;
    expect(config).toMatchObject({ businessName: 'Makati Forex Corp.', currency: 'PHP' });
  });
});
