/**
 * What the page says for each answer of the API that is not a record (SPEC 4), in words a teller
 * reads: the status decides, the envelope's message is not shown (it is for programs).
 */
export type RecordKind = 'transaction' | 'customer';

export interface Refusal {
  /** Shown to the user. */
  readonly words: string;
  /** The session is over (401): back to sign-in. */
  readonly signInAgain: boolean;
}

/** Retry-After in seconds, as API Gateway and the functions send it; undefined when absent. */
function retryWords(retryAfter: string | null): string {
  const seconds = retryAfter !== null && /^\d+$/.test(retryAfter) ? Number(retryAfter) : undefined;
  if (seconds === undefined) return 'Try again in a minute.';
  return `Try again in ${seconds} second${seconds === 1 ? '' : 's'}.`;
}

export function refusalFor(status: number, kind: RecordKind, retryAfter: string | null): Refusal {
  const stay = (words: string): Refusal => ({ words, signInAgain: false });
  switch (status) {
    case 400:
      return stay(`That is not a ${kind} id: ids are whole numbers from 1.`);
    case 401:
      return { words: 'Your session has ended: sign in again.', signInAgain: true };
    case 403:
      return stay(
        kind === 'customer'
          ? 'Your account may not read customers.'
          : 'Your account may not read transactions.',
      );
    case 404:
      return stay(`There is no ${kind} with that id.`);
    case 429:
      return stay(`Too many lookups for now. ${retryWords(retryAfter)}`);
    case 503:
      return stay(`The service is busy or unreachable. ${retryWords(retryAfter)}`);
    default:
      return stay('Something went wrong on our side; the lookup was not made. Try again later.');
  }
}
