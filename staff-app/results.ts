/**
 * Lists of summaries (SPEC 10) as staff go through them: a table with column heads whose first
 * cell of each row is a button that opens the record, reached by Tab in the order shown; a
 * "More" button that fetches the next page; a live region that says how many were found, or that
 * none were, in words. Built with textContent only, as records are (render.ts).
 */
import type { components } from '../client/openapi-types.ts';
import { grouped, type Terms } from './render.ts';

export type TransactionSummary = components['schemas']['TransactionSummary'];
export type CustomerSummary = components['schemas']['CustomerSummary'];

/** One page as the API answers it, or what to say instead (undefined: say nothing, signed out). */
export type PageAnswer<T> =
  | { readonly data: readonly T[]; readonly next: string | null }
  | { readonly words: string | undefined };

/** A row: the opening button's words, then the other cells, one per column head after the first. */
export interface Row {
  readonly open: string;
  readonly cells: readonly string[];
}

export interface ListWords {
  /** The table's caption. */
  readonly caption: string;
  readonly heads: readonly string[];
  /** Columns (by index into `heads`) aligned right: amounts. */
  readonly numeric?: readonly number[];
  /** What one of them is called: `transaction`, `customer`. */
  readonly noun: string;
  /** Said when the first page finds none. */
  readonly none: string;
  /** The "More" button's words. */
  readonly more: string;
}

export interface ListOptions<T> {
  readonly words: ListWords;
  /** A page from `cursor` (the first page without one). */
  readonly fetch: (cursor: string | undefined) => Promise<PageAnswer<T>>;
  readonly row: (item: T) => Row;
  readonly open: (item: T) => void;
  /** The live region that says what was found (role=status, in the document before it speaks). */
  readonly status: HTMLElement;
  /** Where a refusal is said (role=alert). */
  readonly alert: HTMLElement;
}

/** Pages that answer none while `next` goes on (SPEC 10 allows it) are followed this many times. */
const EMPTY_PAGES_FOLLOWED = 3;

let ids = 0;
const nextId = () => `cell-${(ids += 1)}`;

const nounFor = (n: number, noun: string) => (n === 1 ? noun : `${noun}s`);
const plural = (n: number, noun: string) => `${n} ${nounFor(n, noun)}`;

/** Words a live region is about to say: a new search's silence must cancel an old one's words. */
const pending = new Map<HTMLElement, ReturnType<typeof setTimeout>>();

/** Empties a live region, and cancels what it was about to say. */
export function silence(region: HTMLElement): void {
  clearTimeout(pending.get(region));
  pending.delete(region);
  region.textContent = '';
}

/** Says `words` in a live region, afresh even when they are the words it said last. */
export function say(region: HTMLElement, words: string): void {
  silence(region);
  // A change the screen reader notices: an empty region, then the words, a moment later.
  pending.set(
    region,
    setTimeout(() => {
      pending.delete(region);
      region.textContent = words;
    }, 50),
  );
}

/**
 * A list that fetches its first page on `start()`; the element holds the table (hidden until a
 * row comes) and the "More" button (shown while there is a next page).
 */
export function pagedList<T>(options: ListOptions<T>): {
  readonly element: HTMLElement;
  start(): Promise<void>;
} {
  const { words } = options;
  const element = document.createElement('div');
  element.className = 'results';
  const table = document.createElement('table');
  // Not `grid`: a record's own tables (render.ts) are grids, a list of records is not one of them.
  table.className = 'list';
  table.hidden = true;
  table.createCaption().textContent = words.caption;
  const numeric = new Set(words.numeric ?? []);
  const head = table.createTHead().insertRow();
  for (const [i, title] of words.heads.entries()) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = title;
    if (numeric.has(i)) th.className = 'amount';
    head.append(th);
  }
  const body = table.createTBody();
  const more = document.createElement('button');
  more.type = 'button';
  more.className = 'more';
  more.textContent = words.more;
  more.hidden = true;
  element.append(table, more);

  let next: string | null = null;
  let shown = 0;
  let busy = false;

  function add(item: T): HTMLButtonElement {
    const { open, cells } = options.row(item);
    const row = body.insertRow();
    const th = document.createElement('th');
    th.scope = 'row';
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'open';
    button.textContent = open;
    button.addEventListener('click', () => options.open(item));
    th.append(button);
    row.append(th);
    const described: string[] = [];
    cells.forEach((text, i) => {
      const td = document.createElement('td');
      td.textContent = text;
      td.id = nextId();
      if (numeric.has(i + 1)) td.className = 'amount';
      // The first two cells tell namesakes (and one receipt's transactions) apart when Tab
      // reaches the button alone.
      if (i < 2) described.push(td.id);
      row.append(td);
    });
    button.setAttribute('aria-describedby', described.join(' '));
    return button;
  }

  /** Fetches from `cursor`, following empty pages a few times; false when refused. */
  async function load(cursor: string | undefined): Promise<HTMLButtonElement | false | undefined> {
    let first: HTMLButtonElement | undefined;
    let from = cursor;
    for (let followed = 0; ; followed += 1) {
      const answer = await options.fetch(from);
      if ('words' in answer) {
        if (answer.words !== undefined) {
          options.alert.textContent = answer.words;
          options.alert.hidden = false;
        }
        return false;
      }
      for (const item of answer.data) {
        const button = add(item);
        first ??= button;
      }
      shown += answer.data.length;
      next = answer.next;
      if (first || next === null || followed >= EMPTY_PAGES_FOLLOWED) return first;
      from = next;
    }
  }

  function settle(): void {
    table.hidden = shown === 0;
    more.hidden = next === null;
  }

  async function start(): Promise<void> {
    silence(options.status);
    if ((await load(undefined)) === false) return settle();
    settle();
    if (shown === 0 && next === null) return say(options.status, words.none);
    say(
      options.status,
      next === null
        ? `${plural(shown, words.noun)} found.`
        : `${plural(shown, words.noun)} found, and there may be more: ${words.more}.`,
    );
  }

  more.addEventListener('click', () => {
    if (busy || next === null) return;
    busy = true;
    more.setAttribute('aria-disabled', 'true');
    options.alert.hidden = true;
    const before = shown;
    load(next)
      .then((first) => {
        settle();
        if (first === false) return;
        const added = shown - before;
        const end = next === null ? ' That is all.' : '';
        say(options.status, `${added} more ${nounFor(added, words.noun)}: ${shown} shown.${end}`);
        // Focus goes on where the list goes on; with nothing new, it stays on a button that is.
        if (first) first.focus();
        else if (next === null)
          body.querySelector<HTMLButtonElement>('tr:last-child .open')?.focus();
      })
      .catch(() => {
        options.alert.textContent =
          'The service could not be reached. Check the connection and try again.';
        options.alert.hidden = false;
      })
      .finally(() => {
        busy = false;
        more.removeAttribute('aria-disabled');
      });
  });

  return { element, start };
}

/** An amount with the business's currency, as records show it. */
const money = (terms: Terms, decimal: string) => `${terms.currency} ${grouped(decimal)}`;
const inZone = (time: string | null, terms: Terms) =>
  time === null ? 'None' : `${time} (${terms.displayTimeZone})`;

/** Transactions found by receipt number: one receipt may name several (SPEC 10). */
export function transactionRow(t: TransactionSummary, terms: Terms): Row {
  return {
    open: String(t.receipt_no),
    cells: [
      inZone(t.created_at, terms),
      t.branch.name,
      `${t.customer.first_name} (customer ${t.customer.id})`,
      t.type.description,
      money(terms, t.total_amount),
    ],
  };
}

export const TRANSACTION_HEADS = ['Receipt', 'Date', 'Branch', 'Customer', 'Type', 'Total'];

/** A customer's own transactions: the customer column would repeat the page's customer. */
export function customerTransactionRow(t: TransactionSummary, terms: Terms): Row {
  const { cells } = transactionRow(t, terms);
  return { open: String(t.receipt_no), cells: [cells[0]!, cells[1]!, cells[3]!, cells[4]!] };
}

export const CUSTOMER_TRANSACTION_HEADS = ['Receipt', 'Date', 'Branch', 'Type', 'Total'];

/** A customer found: the name as sorted (last name first), then what tells namesakes apart. */
export function customerRow(c: CustomerSummary, terms: Terms): Row {
  const given = [c.first_name, c.middle_name].filter(Boolean).join(' ');
  return {
    open: given ? `${c.last_name}, ${given}` : c.last_name,
    cells: [
      // The calendar date it is, in no zone.
      c.date_of_birth.slice(0, 10),
      `Customer ${c.id}`,
      c.assessment_risk.description,
      inZone(c.last_transaction_datetime, terms),
    ],
  };
}

export const CUSTOMER_HEADS = ['Name', 'Date of birth', 'Customer', 'Risk', 'Last transaction'];
