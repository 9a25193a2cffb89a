/**
 * What the search field finds (SPEC 10), decided here before anything is sent, with the same
 * rules the API applies (core/lookups.ts, core/ids.ts), so that a slip is said in words at once
 * rather than as a refused request that still costs a read.
 *
 * The rules, as the page states them beside the field:
 * - Digits only (spaces between them ignored) is a receipt number, for everyone. A record's
 *   internal id is never guessed from the field: "Look up by id" is its own form.
 * - For `customer-readers`, a value with no digit is a name: `last name, first name`, the first
 *   name a beginning that may be left out. A TIN, SSS number or ID number may look like a
 *   receipt number (digits only) or like one another, so the user says which one they hold
 *   (`held`); digits mixed with other characters, held as neither, are asked about.
 */
import { parseCanonicalId } from '../core/ids.ts';
import {
  MAX_LOOKUP_CHARS,
  TIN_PREFIX_CHARS,
  charCount,
  normaliseIdentifier,
  normaliseName,
} from '../core/matching.ts';

/** What the user says they hold: a receipt number or a name (the default), or an identifier. */
export const HELD_KINDS = ['receipt-or-name', 'tin', 'sss', 'id_no'] as const;
export type Held = (typeof HELD_KINDS)[number];

export const isHeld = (value: unknown): value is Held =>
  (HELD_KINDS as readonly unknown[]).includes(value);

/** The kind of search, as the page's words name it. */
export type SearchKind = 'receipt' | 'name' | 'tin' | 'sss' | 'id_no';

export type Search =
  | {
      readonly route: '/transactions';
      readonly kind: 'receipt';
      readonly query: { readonly receipt_no: string };
    }
  | {
      readonly route: '/customers';
      readonly kind: Exclude<SearchKind, 'receipt'>;
      readonly query: Readonly<Record<string, string>>;
    };

export type Parsed = { readonly search: Search } | { readonly problem: string };

const RECEIPT_RULE =
  'receipt numbers are whole numbers from 1 to 9007199254740991, with no leading zero';

function receipt(digits: string): Parsed {
  if (parseCanonicalId(digits) === undefined)
    return { problem: `That is not a receipt number: ${RECEIPT_RULE}.` };
  return { search: { route: '/transactions', kind: 'receipt', query: { receipt_no: digits } } };
}

function name(value: string): Parsed {
  const comma = value.indexOf(',');
  const last = (comma < 0 ? value : value.slice(0, comma)).trim();
  const first = comma < 0 ? '' : value.slice(comma + 1).trim();
  if (normaliseName(last) === '')
    return {
      problem: 'Type the last name first, then a comma and the first name: Dela Cruz, Juan.',
    };
  if (first !== '' && normaliseName(first) === '')
    return { problem: 'After the comma, type the first name or its beginning, or nothing.' };
  const query: Record<string, string> =
    first === '' ? { last_name: last } : { last_name: last, first_name: first };
  return { search: { route: '/customers', kind: 'name', query } };
}

const IDENTIFIER_WORDS = {
  tin: 'TIN',
  sss: 'SSS number',
  id_no: 'ID number',
} as const;

function identifier(kind: 'tin' | 'sss' | 'id_no', value: string): Parsed {
  const normalised = normaliseIdentifier(value);
  if (normalised === '')
    return { problem: `Type the ${IDENTIFIER_WORDS[kind]}: it has letters or digits.` };
  if (kind === 'tin' && charCount(normalised) < TIN_PREFIX_CHARS)
    return {
      problem: `A TIN has at least ${TIN_PREFIX_CHARS} digits (the TIN card's); dashes and spaces do not count.`,
    };
  return { search: { route: '/customers', kind, query: { [kind]: value } } };
}

/**
 * What a search of `raw` finds, given what the user holds and whether they may read customers
 * (a teller holds receipts only: `held` is then ignored); or the problem, in words.
 */
export function parseSearch(raw: string, held: Held, mayReadCustomers: boolean): Parsed {
  const value = raw.trim();
  if (value === '')
    return {
      problem: mayReadCustomers
        ? 'Type what you hold: a receipt number, a name, a TIN, an SSS number or an ID number.'
        : 'Type the receipt number.',
    };
  if (charCount(value) > MAX_LOOKUP_CHARS)
    return { problem: `That is too long: a search takes at most ${MAX_LOOKUP_CHARS} characters.` };
  if (mayReadCustomers && held !== 'receipt-or-name') return identifier(held, value);
  const digits = value.replace(/\s+/g, '');
  if (/^[0-9]+$/.test(digits)) return receipt(digits);
  if (!mayReadCustomers)
    return {
      problem:
        'A receipt number is digits only, e.g. 20230915000123. Your account may not search customers.',
    };
  // Digits among other characters: a TIN, SSS or ID number, never a name; which one, the user says.
  if (/\p{N}/u.test(value))
    return {
      problem:
        'That is neither a receipt number (digits only) nor a name: for a TIN, an SSS number or an ID number, choose it under "What you hold".',
    };
  return name(value);
}
