/** What the staff page says for each SPEC error (staff-app/error-words.ts). */
import { refusalFor } from '../../staff-app/error-words.ts';

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
