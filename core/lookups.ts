/**
 * Finding records by what staff hold (SPEC 10): how values are normalised, the table's global
 * secondary indexes, and the index keys a record's one item carries. The import's UpdateItem writes
 * them with the record (core/layout.ts itemOf), so an index follows its record with no second
 * write; a tombstone carries none, so a deleted record leaves every index.
 *
 * | index                   | partition key       | sort key            | item      | answers                     |
 * |-------------------------|---------------------|---------------------|-----------|-----------------------------|
 * | `receipt`               | `receiptKey`        | `timeKey`           | transaction | `GET /transactions?receipt_no=` |
 * | `customer-transactions` | `customerKey`       | `timeKey`           | transaction | `GET /customers/{id}/transactions` |
 * | `tin`                   | `tinKey` (9 chars)  | `nameKey`           | customer  | `GET /customers?tin=`       |
 * | `sss`                   | `sssKey`            | `nameKey`           | customer  | `GET /customers?sss=`       |
 * | `id-no`                 | `idNoKey`           | `nameKey`           | customer  | `GET /customers?id_no=`     |
 * | `last-name`             | `lastNameKey`       | `nameKey`           | customer  | `GET /customers?last_name=` |
 *
 * `timeKey` is `<created_at UTC>#<id, 16 digits>`: read backwards, newest first, then id
 * descending. `nameKey` is `<last>#<first>#<id, 16 digits>` of the normalised names: `#` sorts
 * below every letter and digit, so DynamoDB's byte order of UTF-8 (code-point order) is the
 * order of SPEC 10. Each index projects what its summary shows, so a page is one Query.
 */
import type { Entity } from './entities.ts';
import {
  MAX_LOOKUP_CHARS,
  TIN_PREFIX_CHARS,
  charCount,
  normaliseIdentifier,
  normaliseName,
} from './matching.ts';

/** DynamoDB's limit on a sort key's size, in bytes. */
const MAX_SORT_KEY_BYTES = 1024;
/** Ids in a sort key: 2^53-1 has 16 digits, so zero-padded ids sort as numbers. */
const ID_DIGITS = 16;
const SEPARATOR = '#';

/** Attributes of a record's item that only the indexes read. */
export const INDEX_ATTRIBUTES = {
  receipt: 'receiptKey',
  customer: 'customerKey',
  time: 'timeKey',
  tin: 'tinKey',
  tinWhole: 'tinWhole',
  sss: 'sssKey',
  idNo: 'idNoKey',
  lastName: 'lastNameKey',
  name: 'nameKey',
} as const;

const A = INDEX_ATTRIBUTES;

/** What each summary shows (SPEC 10), projected into the indexes of its entity. */
const SUMMARY_FIELDS = {
  transaction: ['id', 'receipt_no', 'created_at', 'branch', 'customer', 'type', 'total_amount'],
  customer: [
    'id',
    'first_name',
    'middle_name',
    'last_name',
    'date_of_birth',
    'assessment_risk',
    'last_transaction_datetime',
  ],
} as const satisfies Record<Entity, readonly string[]>;

export interface IndexLayout {
  readonly name: string;
  /** The records it holds. */
  readonly entity: Entity;
  /** The function that queries it: the one of its route's records (core/routes.ts). */
  readonly queriedBy: Entity;
  readonly partitionKey: string;
  readonly sortKey: string;
  /** Non-key attributes it holds: the summary's, and what a lookup filters on. */
  readonly projected: readonly string[];
}

function index(
  name: string,
  [entity, queriedBy]: [Entity, Entity],
  partitionKey: string,
  sortKey: string,
  extra: readonly string[] = [],
): IndexLayout {
  const projected = [...SUMMARY_FIELDS[entity], ...extra];
  return { name, entity, queriedBy, partitionKey, sortKey, projected };
}

const TRANSACTIONS = ['transaction', 'transaction'] as [Entity, Entity];
const CUSTOMERS = ['customer', 'customer'] as [Entity, Entity];

export const INDEXES = {
  receipt: index('receipt', TRANSACTIONS, A.receipt, A.time),
  // A customer's transactions are a customer route's (SPEC 10).
  customerTransactions: index(
    'customer-transactions',
    ['transaction', 'customer'],
    A.customer,
    A.time,
  ),
  // A TIN given longer than 9 characters is matched on the whole stored TIN as well.
  tin: index('tin', CUSTOMERS, A.tin, A.name, [A.tinWhole]),
  sss: index('sss', CUSTOMERS, A.sss, A.name),
  idNo: index('id-no', CUSTOMERS, A.idNo, A.name),
  lastName: index('last-name', CUSTOMERS, A.lastName, A.name),
} as const satisfies Record<string, IndexLayout>;

export const INDEX_LIST: readonly IndexLayout[] = Object.values(INDEXES);

/** A normalised value an index can hold: not empty, at most MAX_LOOKUP_CHARS. */
const indexable = (value: string): string | undefined =>
  value !== '' && charCount(value) <= MAX_LOOKUP_CHARS ? value : undefined;

const paddedId = (id: bigint): string => id.toString().padStart(ID_DIGITS, '0');

/** The record id an index sort key ends with: a cursor holds the sort key alone. */
export function idOfSortKey(sortKey: string): bigint {
  return BigInt(sortKey.slice(sortKey.lastIndexOf(SEPARATOR) + 1));
}
/** The sort key of a transaction: its instant (UTC, sortable as text), then its id. */
function timeKey(createdAtUtc: string, id: bigint): string {
  return `${createdAtUtc}${SEPARATOR}${paddedId(id)}`;
}

/** The beginning of a customer's sort key: a normalised last name, then a first name prefix. */
export function namePrefix(last: string, firstPrefix: string): string {
  return `${last}${SEPARATOR}${firstPrefix}`;
}

/**
 * The sort key of a customer. A key that would pass DynamoDB's sort key limit has its first name
 * cut (order among such names is then by the part kept; a first-name prefix past the cut is not
 * matched): never seen in practice, but a write that failed on it would refuse a valid record.
 * An indexable last name (at most 200 characters of at most 4 bytes) always fits whole, so a
 * last-name lookup finds it; one too long to be indexed is cut too.
 */
function nameKey(last: string, first: string, id: bigint): string {
  const tail = `${SEPARATOR}${paddedId(id)}`;
  const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
  const cut = (text: string, room: number) => {
    const chars = [...text];
    while (bytes(chars.join('')) > room) chars.pop();
    return chars.join('');
  };
  const l = cut(last, MAX_SORT_KEY_BYTES - bytes(`${SEPARATOR}${tail}`));
  const f = cut(first, MAX_SORT_KEY_BYTES - bytes(`${l}${SEPARATOR}${tail}`));
  return `${namePrefix(l, f)}${tail}`;
}

type Attributes = Record<string, string>;

/** The index keys a transaction's item carries (its times already in UTC). */
function transactionKeys(record: Record<string, unknown>): Attributes {
  const id = record.id as bigint;
  const customer = record.customer as { id: bigint };
  return {
    [A.receipt]: String(record.receipt_no as bigint),
    [A.customer]: String(customer.id),
    [A.time]: timeKey(record.created_at as string, id),
  };
}

/** The index keys a customer's item carries: a value that normalises to nothing is not indexed. */
function customerKeys(record: Record<string, unknown>): Attributes {
  const keys: Attributes = {};
  const set = (name: string, value: string | undefined) => {
    if (value !== undefined) keys[name] = value;
  };
  const identifier = (field: string) =>
    typeof record[field] === 'string' ? indexable(normaliseIdentifier(record[field])) : undefined;
  const tin = identifier('tin');
  if (tin !== undefined && charCount(tin) >= TIN_PREFIX_CHARS) {
    set(A.tin, [...tin].slice(0, TIN_PREFIX_CHARS).join(''));
    set(A.tinWhole, tin);
  }
  set(A.sss, identifier('sss'));
  set(A.idNo, identifier('id_no'));
  const last = normaliseName(record.last_name as string);
  set(A.lastName, indexable(last));
  keys[A.name] = nameKey(last, normaliseName(record.first_name as string), record.id as bigint);
  return keys;
}

/** The index keys of a record's item, from the record as stored. */
export function indexKeysOf(entity: Entity, record: Record<string, unknown>): Attributes {
  return entity === 'transaction' ? transactionKeys(record) : customerKeys(record);
}

/**
 * What the import warns of in a customer (SPEC 10's decision: counted in the report, never a
 * refusal; the value is kept as given): a TIN that is not 9 to 14 digits or an SSS number that
 * is not 10 once separators are removed, and a value no lookup can find (nothing left once
 * normalised, or over MAX_LOOKUP_CHARS). `[field, reason]` pairs.
 */
const FIELD_ORDER = ['tin', 'sss', 'id_no', 'last_name'];

export function lookupWarnings(record: Record<string, unknown>): [string, string][] {
  const warnings: [string, string][] = [];
  const text = (field: string) => (typeof record[field] === 'string' ? record[field] : undefined);
  const unfound = (field: string, normalise: (v: string) => string) => {
    const value = text(field);
    if (value === undefined) return;
    const normalised = normalise(value);
    if (normalised !== '' && charCount(normalised) <= MAX_LOOKUP_CHARS) return;
    warnings.push([
      field,
      normalised === ''
        ? 'has no letter or digit: kept as given, no lookup finds it by this field'
        : `is over ${MAX_LOOKUP_CHARS} letters and digits: kept as given, no lookup finds it by this field`,
    ]);
  };
  for (const field of ['tin', 'sss', 'id_no']) unfound(field, normaliseIdentifier);
  unfound('last_name', normaliseName);
  const warned = (field: string) => warnings.some(([f]) => f === field);
  const tin = text('tin');
  const sss = text('sss');
  if (tin !== undefined && !warned('tin') && !/^[0-9]{9,14}$/.test(normaliseIdentifier(tin)))
    warnings.push([
      'tin',
      charCount(normaliseIdentifier(tin)) < TIN_PREFIX_CHARS
        ? `is not 9 to 14 digits once separators are removed, and has fewer than ${TIN_PREFIX_CHARS} letters and digits: kept as given, no TIN lookup finds it`
        : 'is not 9 to 14 digits once separators are removed: kept as given, and found by its letters and digits',
    ]);
  if (sss !== undefined && !warned('sss') && !/^[0-9]{10}$/.test(normaliseIdentifier(sss)))
    warnings.push([
      'sss',
      'is not 10 digits once separators are removed: kept as given, and found by its letters and digits',
    ]);
  return warnings.sort((a, b) => FIELD_ORDER.indexOf(a[0]) - FIELD_ORDER.indexOf(b[0]));
}
