/**
 * Finding records by what staff hold (SPEC 10): how values are normalised, the table's global
 * secondary indexes, and the index keys a record's one item carries. The import's PutItem writes
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

/** The longest value a lookup takes, and the longest normalised value indexed (SPEC 10). */
export const MAX_LOOKUP_CHARS = 200;
/** A TIN is found by a prefix of at least this many characters (the TIN card's 9 digits). */
export const TIN_PREFIX_CHARS = 9;
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
export const SUMMARY_FIELDS = {
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

/**
 * A name as SPEC 10 compares it: compatibility decomposition, accents removed (`ñ` is `n`),
 * letters and digits only, lower-cased. `De la Cruz`, `DELA CRUZ` and `Dela-Cruz` are one name.
 */
export function normaliseName(value: string): string {
  // Marks (accents) are neither letters nor digits; lower-casing can decompose further (`İ`).
  return value
    .normalize('NFKD')
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^\p{L}\p{N}]/gu, '');
}

/** A TIN, SSS number or ID number as SPEC 10 compares it: letters and digits, upper-cased. */
export function normaliseIdentifier(value: string): string {
  return value.replace(/[^\p{L}\p{N}]/gu, '').toUpperCase();
}

/** Characters as a person counts them (code points), not UTF-16 units. */
export const charCount = (value: string): number => [...value].length;

/** A normalised value an index can hold: not empty, at most MAX_LOOKUP_CHARS. */
const indexable = (value: string): string | undefined =>
  value !== '' && charCount(value) <= MAX_LOOKUP_CHARS ? value : undefined;

export const paddedId = (id: bigint): string => id.toString().padStart(ID_DIGITS, '0');

/** The record id an index sort key ends with: a cursor holds the sort key alone. */
export function idOfSortKey(sortKey: string): bigint {
  return BigInt(sortKey.slice(sortKey.lastIndexOf(SEPARATOR) + 1));
}
/** The sort key of a transaction: its instant (UTC, sortable as text), then its id. */
export function timeKey(createdAtUtc: string, id: bigint): string {
  return `${createdAtUtc}${SEPARATOR}${paddedId(id)}`;
}

/** The beginning of a customer's sort key: a normalised last name, then a first name prefix. */
export function namePrefix(last: string, firstPrefix: string): string {
  return `${last}${SEPARATOR}${firstPrefix}`;
}

/**
 * The sort key of a customer. Names whose key would pass DynamoDB's sort key limit are cut
 * (their order among such names is then by the part kept); never seen in practice, but a
 * write that fails on it would refuse a valid record.
 */
function nameKey(last: string, first: string, id: bigint): string {
  const tail = `${SEPARATOR}${paddedId(id)}`;
  let [l, f] = [[...last], [...first]];
  const bytes = () => Buffer.byteLength(`${l.join('')}${SEPARATOR}${f.join('')}${tail}`, 'utf8');
  while (bytes() > MAX_SORT_KEY_BYTES) {
    if (f.length >= l.length) f = f.slice(0, -1);
    else l = l.slice(0, -1);
  }
  return `${namePrefix(l.join(''), f.join(''))}${tail}`;
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
export function lookupWarnings(record: Record<string, unknown>): [string, string][] {
  const warnings: [string, string][] = [];
  const text = (field: string) => (typeof record[field] === 'string' ? record[field] : undefined);
  const tin = text('tin');
  const sss = text('sss');
  if (tin !== undefined && !/^[0-9]{9,14}$/.test(normaliseIdentifier(tin)))
    warnings.push([
      'tin',
      charCount(normaliseIdentifier(tin)) < TIN_PREFIX_CHARS
        ? `is not 9 to 14 digits once separators are removed, and has fewer than ${TIN_PREFIX_CHARS} letters and digits: kept as given, no TIN lookup finds it`
        : 'is not 9 to 14 digits once separators are removed: kept as given, and found by its letters and digits',
    ]);
  if (sss !== undefined && !/^[0-9]{10}$/.test(normaliseIdentifier(sss)))
    warnings.push([
      'sss',
      'is not 10 digits once separators are removed: kept as given, and found by its letters and digits',
    ]);
  const unfound = (field: string, normalise: (v: string) => string) => {
    const value = text(field);
    if (value === undefined) return;
    const normalised = normalise(value);
    if (normalised !== '' && charCount(normalised) <= MAX_LOOKUP_CHARS) return;
    if (warnings.some(([f]) => f === field)) return;
    warnings.push([
      field,
      normalised === ''
        ? 'has no letter or digit: kept as given, no lookup finds it by this field'
        : `is over ${MAX_LOOKUP_CHARS} letters and digits: kept as given, no lookup finds it by this field`,
    ]);
  };
  unfound('tin', normaliseIdentifier);
  unfound('sss', normaliseIdentifier);
  unfound('id_no', normaliseIdentifier);
  unfound('last_name', normaliseName);
  return warnings;
}
