/**
 * A record as a teller reads it. Built with textContent only: a record's text never becomes
 * markup. Amounts and rates are shown exactly as the API sends them (decimal strings), grouped.
 */
import type { components } from '../client/openapi-types.ts';

type Transaction = components['schemas']['Transaction'];
type Customer = components['schemas']['Customer'];

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text?: string | number | null,
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

/** A two-column table of labelled values. */
function facts(rows: readonly [string, string | number | null][]): HTMLTableElement {
  const table = element('table');
  for (const [label, value] of rows) {
    const row = table.insertRow();
    row.append(element('th', label), element('td', value ?? '—'));
  }
  return table;
}

function image(url: string | null, alt: string): HTMLElement {
  if (!url) return element('p', `No ${alt.toLowerCase()} on file.`);
  const img = element('img', undefined, 'image');
  img.alt = alt;
  img.src = url;
  return img;
}

export function transactionView(t: Transaction): HTMLElement {
  const view = element('article');
  view.dataset.kind = 'transaction';
  view.append(
    element('h3', `Receipt ${t.receipt_no}`),
    facts([
      ['Transaction', t.id],
      ['Date', t.created_at],
      ['Branch', t.branch.name],
      ['Type', t.type.description],
      ['Purpose', t.purpose.description],
      ['Customer', t.customer.first_name],
      ['Customer e-mail', t.customer.email],
      ['Customer id', t.customer.id],
      ['Total', grouped(t.total_amount)],
      ['Created by', t.created_by.name],
    ]),
    element('h4', 'Lines'),
  );
  const lines = element('table');
  lines.className = 'lines';
  const head = lines.createTHead().insertRow();
  for (const title of ['Currency', 'Rate', 'Exchanged', 'Received'])
    head.append(element('th', title));
  const body = lines.createTBody();
  for (const line of t.transaction_currencies) {
    const row = body.insertRow();
    row.append(
      element('td', line.currency),
      element('td', grouped(line.rate), 'amount'),
      element('td', grouped(line.exchange_amount), 'amount'),
      element('td', grouped(line.receive_amount), 'amount'),
    );
  }
  view.append(lines, element('h4', 'Signature'), image(t.signature, 'Signature'));
  return view;
}

export function customerView(c: Customer): HTMLElement {
  const view = element('article');
  view.dataset.kind = 'customer';
  view.append(
    element('h3', [c.first_name, c.middle_name, c.last_name].filter(Boolean).join(' ')),
    facts([
      ['Customer', c.id],
      ['E-mail', c.email],
      ['Date of birth', c.date_of_birth],
      ['Nationality', c.nationality],
      ['Current address', c.current_address],
      ['Document', c.document_type],
      ['Document number', c.id_no],
      ['TIN', c.tin],
      ['SSS', c.sss],
      ['Risk', `${c.assessment_risk.description} (score ${c.assessment_score})`],
      ['Last transaction', c.last_transaction_datetime],
    ]),
    element('h4', 'ID photo'),
    image(c.id_photo, 'ID photo'),
  );
  return view;
}
