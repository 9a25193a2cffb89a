/**
 * What the page says for each answer of the API that is not a record (SPEC 4), in words a teller
 * reads: the status decides, the envelope's message is not shown (it is for programs).
 */
export type RecordKind = 'transaction' | 'customer';

/** A search (SPEC 10) by receipt number, of customers, or a customer's list of transactions. */
export type ListKind = 'receipt' | 'customers' | 'customer-transactions';

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

const stay = (words: string): Refusal => ({ words, signInAgain: false });

/** What every request may meet, whatever it asked for. */
function anyRefusal(status: number, retryAfter: string | null): Refusal {
  switch (status) {
    case 401:
      return { words: 'Your session has ended: sign in again.', signInAgain: true };
    case 429:
      return stay(`Too many lookups for now. ${retryWords(retryAfter)}`);
    case 503:
      return stay(`The service is busy or unreachable. ${retryWords(retryAfter)}`);
    default:
      return stay('Something went wrong on our side; the lookup was not made. Try again later.');
  }
}

export function refusalFor(status: number, kind: RecordKind, retryAfter: string | null): Refusal {
  switch (status) {
    case 400:
      return stay(`That is not a ${kind} id: ids are whole numbers from 1.`);
    case 403:
      return stay(
        kind === 'customer'
          ? 'Your account may not read customers.'
          : 'Your account may not read transactions.',
      );
    case 404:
      return stay(`There is no ${kind} with that id.`);
    default:
      return anyRefusal(status, retryAfter);
  }
}

/**
 * A search's or list's refusal. A 400's message (`Invalid <parameter>: <reason>`, SPEC 4) is read
 * only for the parameter it names, to say what to do: the page checks what is typed before it
 * sends it, so a 400 is mostly a page of results left open for over a day.
 */
export function listRefusalFor(
  status: number,
  kind: ListKind,
  retryAfter: string | null,
  message?: string,
): Refusal {
  switch (status) {
    case 400:
      if (message?.startsWith('Invalid cursor'))
        return stay('These results are too old to go on with: search again.');
      if (message?.startsWith('Invalid tin'))
        return stay(
          "A TIN has at least 9 digits (the TIN card's); dashes and spaces do not count.",
        );
      return stay('That search was not accepted: check what you typed, then search again.');
    case 403:
      return stay(
        kind === 'customers'
          ? 'Your account may not search customers.'
          : kind === 'customer-transactions'
            ? 'Your account may not read customers or their transactions.'
            : 'Your account may not read transactions.',
      );
    case 404:
      return stay(
        kind === 'customer-transactions'
          ? 'There is no customer with that id, and no transaction names it.'
          : 'Nothing was found.',
      );
    default:
      return anyRefusal(status, retryAfter);
  }
}
