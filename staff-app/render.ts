/**
 * A record as staff read it: a teller a transaction, compliance a customer's KYC record. Built
 * with textContent only: a record's text never becomes markup. Amounts and rates are shown
 * exactly as the API sends them (decimal strings), grouped, each with its currency: the
 * business's own for what is reckoned at the rate, the line's for what was exchanged. Every time
 * says its zone (the stage's, in which the API shows times); a date of birth is a calendar date.
 * A printed KYC record says whose it is (the business), when it was printed and by whom.
 */
import type { components } from '../client/openapi-types.ts';
import { printedTime, type Terms } from './times.ts';

type Transaction = components['schemas']['Transaction'];
type Customer = components['schemas']['Customer'];

export type { Terms };

type Value = string | number | null;

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text?: Value,
  className?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (className) node.className = className;
  return node;
}

/**
 * A decimal string as a teller reads it, its digits grouped by thousands (`56125.00` →
 * `56,125.00`), exact: only the characters move, never through a number.
 */
export function grouped(decimal: string): string {
  const [, sign, whole, fraction] = /^(-?)(\d+)(\.\d+)?$/.exec(decimal) ?? [];
  if (whole === undefined) return decimal;
  return `${sign}${whole.replace(/\B(?=(\d{3})+$)/g, ',')}${fraction ?? ''}`;
}

/** An amount with its currency code: `PHP 56,125.00`. */
const money = (code: string, decimal: string) => `${code} ${grouped(decimal)}`;

/** A line's currency code from its name (`US Dollar (USD)` → `USD`); the name when it has none. */
export const codeOf = (currency: string): string =>
  /\(([A-Z]{3})\)\s*$/.exec(currency)?.[1] ?? currency;

/** A time as the API shows it, in the stage's zone, saying which: `2023-09-15 10:01:02 (Asia/Manila)`. */
const inZone = (time: string | null, terms: Terms) =>
  time === null ? null : `${time} (${terms.displayTimeZone})`;

/** A record's heading, which the page moves the focus to when a list opens the record. */
function heading(text: string): HTMLHeadingElement {
  const h3 = element('h3', text);
  h3.tabIndex = -1;
  return h3;
}

/** A two-column table of labelled values; an unset value says so in words. */
function facts(rows: readonly [string, Value][]): HTMLTableElement {
  const table = element('table', undefined, 'facts');
  for (const [label, value] of rows) {
    const row = table.insertRow();
    const th = element('th', label);
    th.scope = 'row';
    row.append(th, element('td', value ?? 'Not recorded'));
  }
  return table;
}

/** A table with a caption and column heads; `numeric` columns align right. */
function grid(
  caption: string,
  heads: readonly string[],
  rows: readonly Value[][],
  numeric: ReadonlySet<number>,
): HTMLTableElement {
  const table = element('table', undefined, 'grid');
  table.createCaption().textContent = caption;
  const head = table.createTHead().insertRow();
  for (const [i, title] of heads.entries()) {
    const th = element('th', title, numeric.has(i) ? 'amount' : '');
    th.scope = 'col';
    head.append(th);
  }
  const body = table.createTBody();
  for (const cells of rows) {
    const row = body.insertRow();
    cells.forEach((cell, i) => row.append(element('td', cell, numeric.has(i) ? 'amount' : '')));
  }
  return table;
}

/**
 * A file the record names: the image, or a sentence when there is none or it cannot be loaded
 * (not in the files bucket, or its link expired), never a broken image.
 */
function image(url: string | null, what: string): HTMLElement {
  if (!url) return element('p', `No ${what} on file.`, 'no-file');
  const img = element('img', undefined, 'image');
  img.alt = what[0]!.toUpperCase() + what.slice(1);
  img.addEventListener('error', () =>
    img.replaceWith(
      element(
        'p',
        `The ${what} could not be loaded: its file is not in the files bucket, or its link has expired (look the record up again).`,
        'no-file',
      ),
    ),
  );
  img.src = url;
  return img;
}

export function transactionView(t: Transaction, terms: Terms): HTMLElement {
  const view = element('article');
  view.dataset.kind = 'transaction';
  const { currency } = terms;
  const attachment = t.attachment
    ? Object.assign(element('a', 'Open the attachment'), { href: t.attachment, rel: 'noreferrer' })
    : element('p', 'No attachment on file.', 'no-file');
  view.append(
    heading(`Receipt ${t.receipt_no}`),
    facts([
      ['Transaction', t.id],
      ['Date', inZone(t.created_at, terms)],
      ['Branch', `${t.branch.name}, ${t.branch.address}`],
      ['Type', t.type.description],
      ['Purpose', t.purpose.description],
      ['Customer', `${t.customer.first_name} (customer ${t.customer.id})`],
      ['Customer e-mail', t.customer.email],
      ['Total', money(currency, t.total_amount)],
      ['Total profit', money(currency, t.total_profit_amount)],
      ['Created by', t.created_by.name],
    ]),
    grid(
      'Currency lines',
      ['Currency', 'Rate', 'Exchanged', 'Received', 'Profit'],
      t.transaction_currencies.map((line) => [
        line.currency,
        grouped(line.rate),
        money(codeOf(line.currency), line.exchange_amount),
        money(currency, line.receive_amount),
        money(currency, line.receive_profit_amount),
      ]),
      new Set([1, 2, 3, 4]),
    ),
    element('h4', 'Signature'),
    image(t.signature, 'signature'),
    element('h4', 'Attachment'),
    attachment,
  );
  return view;
}

/**
 * The head of a printed KYC record (print only): the business, and when and by whom it was
 * printed. The time is the page's at rendering, set again as the browser prints (main.ts).
 */
function printHead(terms: Terms, printedBy: string): HTMLElement {
  const head = element('div', undefined, 'print-head');
  const time = element('span', printedTime(terms), 'printed-at');
  const line = element('p', 'Customer record (KYC), printed ');
  line.append(time, ` by ${printedBy}.`);
  head.append(element('p', terms.businessName, 'business-name'), line);
  return head;
}

export function customerView(c: Customer, terms: Terms, printedBy: string): HTMLElement {
  const view = element('article');
  view.dataset.kind = 'customer';
  view.append(
    printHead(terms, printedBy),
    heading([c.first_name, c.middle_name, c.last_name].filter(Boolean).join(' ')),
    facts([
      ['Customer', c.id],
      ['First name', c.first_name],
      ['Middle name', c.middle_name],
      ['Last name', c.last_name],
      ['E-mail', c.email],
      ['Contact number', c.contact_number],
      // The calendar date it is, in no zone.
      ['Date of birth', c.date_of_birth.slice(0, 10)],
      ['Place of birth', c.place_of_birth],
      ['Nationality', c.nationality],
      ['Current address', c.current_address],
      ['Permanent address', c.permanent_address],
      ['Document', c.document_type],
      ['Document number', c.id_no],
      ['TIN', c.tin],
      ['SSS', c.sss],
      ['Risk', c.assessment_risk.description],
      ['Risk score', c.assessment_score],
      ['Last transaction', inZone(c.last_transaction_datetime, terms) ?? 'None'],
    ]),
    grid(
      'Risk assessments',
      ['Type', 'Value', 'Grade'],
      c.customer_risk_assessments.map((a) => [a.type.description, a.value, a.grade]),
      new Set([2]),
    ),
    element('h4', 'ID photo'),
    image(c.id_photo, 'ID photo'),
  );
  return view;
}
