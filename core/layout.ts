/**
 * The single table's layout. A record is one item, its children a list attribute in ascending
 * id order, so that a PutItem replaces it whole and a GET is one GetItem (SPEC 6, 6.1):
 *
 * | item        | pk          | sk    | attributes                                          |
 * |-------------|-------------|-------|-----------------------------------------------------|
 * | transaction | `TXN#<id>`  | `TXN` | its fields, `transaction_currencies`, `v`           |
 * | customer    | `CUS#<id>`  | `CUS` | its fields, `customer_risk_assessments`, `v`        |
 * | deleted     | as above    |       | `v`, `deleted: true` (a tombstone)                  |
 *
 * (prefixes per entity in ./entities; access-state items, `USER#...`, in ./access-state). `v` is
 * the version an import wrote; a write goes through only over an older one, so no older import
 * brings back what a newer one replaced or deleted (import/writer.ts).
 *
 * Access patterns:
 * - Get One Transaction / Customer: GetItem pk, sk (functions/shared/store.ts).
 * - Import: PutItem of the record or its tombstone, on condition, returning the old item
 *   (import/writer.ts).
 */
import { randomBytes } from 'node:crypto';
import type { EntityDescriptor } from './entities.ts';
import { MAX_ID } from './ids.ts';

export const PARTITION_KEY = 'pk';
export const SORT_KEY = 'sk';
/** The version the import wrote. */
export const VERSION = 'v';
export const DELETED = 'deleted';
/**
 * An attribute only the earlier layout wrote (the head's count of child items, each child an item
 * of its own): a table holding it is loaded again from its files (docs/operations.md).
 */
export const OLD_LAYOUT_CHILD_COUNT = 'n';

/** DynamoDB's item size limit, 400 KB, in bytes as it counts them. */
export const MAX_ITEM_BYTES = 400 * 1024;

export type Item = Record<string, unknown>;

export function partitionKey(entity: EntityDescriptor, id: bigint): string {
  return `${entity.keys.partition}${id}`;
}

/** The key of a record's item. */
export function keyOf(entity: EntityDescriptor, id: bigint): Item {
  return { [PARTITION_KEY]: partitionKey(entity, id), [SORT_KEY]: entity.keys.sort };
}

/**
 * Versions are fixed-width strings that sort as they were made: milliseconds since 1970 in
 * base 36 (9 digits: good until about the year 5188), then 6 random base-36 digits so that two
 * importers never make the same one. `after` gives one greater than a version already stored,
 * whatever this machine's clock says.
 */
export function newVersion(now = Date.now(), after?: string): string {
  let ms = now;
  if (after !== undefined && after.length >= 9) {
    const stored = parseInt(after.slice(0, 9), 36);
    if (Number.isFinite(stored) && ms <= stored) ms = stored + 1;
  }
  const random = (randomBytes(4).readUInt32BE() % 36 ** 6).toString(36).padStart(6, '0');
  return `${ms.toString(36).padStart(9, '0')}${random}`;
}

/** A version as long as every version: what the import sizes a record with before writing it. */
export const VERSION_FOR_SIZE = newVersion(0);

/** The item that stores a record (its children already in ascending id order). */
export function itemOf(entity: EntityDescriptor, record: Item, version: string): Item {
  return { ...keyOf(entity, record.id as bigint), ...record, [VERSION]: version };
}

/** The item of a deleted record: a version, so that no older import can bring it back. */
export function tombstoneOf(entity: EntityDescriptor, id: bigint, version: string): Item {
  return { ...keyOf(entity, id), [VERSION]: version, [DELETED]: true };
}

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');

/**
 * A number's size: a byte for each pair of digits, the pairs aligned on the decimal point, leading
 * and trailing zero pairs left out, and one byte more. DynamoDB documents "approximately one byte
 * per two significant digits, plus one"; pairs aligned on the point are never fewer, so the count
 * errs high by a byte at most, never low.
 */
function numberSize(value: bigint | number): number {
  const [whole = '', fraction = ''] = String(value).replace('-', '').split('.');
  const digits = `${whole.length % 2 ? '0' : ''}${whole}${fraction}${fraction.length % 2 ? '0' : ''}`;
  const pairs = digits.match(/../g) ?? [];
  let [first, end] = [0, pairs.length];
  while (first < end && pairs[first] === '00') first += 1;
  while (end > first && pairs[end - 1] === '00') end -= 1;
  return Math.max(1, end - first) + 1;
}

/**
 * A value's size as DynamoDB counts it (Developer Guide, "DynamoDB item sizes and formats"):
 * strings their UTF-8 bytes; numbers 1 byte per two significant digits plus 1; null and booleans
 * 1; a list or map 3 bytes, plus 1 byte and the size of each element (a map's with its name).
 */
function valueSize(value: unknown): number {
  if (typeof value === 'string') return utf8(value);
  if (typeof value === 'bigint' || typeof value === 'number') return numberSize(value);
  if (value === null || typeof value === 'boolean') return 1;
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + 1 + valueSize(v), 3);
  return Object.entries(value as Item).reduce((n, [k, v]) => n + 1 + utf8(k) + valueSize(v), 3);
}

/** An item's size as DynamoDB counts it against MAX_ITEM_BYTES: its attributes' names and values. */
export function itemSize(item: Item): number {
  return Object.entries(item).reduce((n, [name, value]) => n + utf8(name) + valueSize(value), 0);
}

/** Each entity's key and version as itemSizeBound counts them: the same for every line. */
const KEY_AND_VERSION_BYTES = new Map<EntityDescriptor, number>();

/**
 * The most a record's item can count, from the length of the JSON line it was read from: a UTF-16
 * unit is at most 3 UTF-8 bytes, and each name, number, null, boolean, list and map DynamoDB counts
 * is no more than 3 bytes a character of its JSON; the key and version come on top (counted as a
 * tombstone's, which also carries a flag). Only a line whose bound passes MAX_ITEM_BYTES needs
 * counting exactly (itemSize).
 */
export function itemSizeBound(entity: EntityDescriptor, jsonLength: number): number {
  let keyBytes = KEY_AND_VERSION_BYTES.get(entity);
  if (keyBytes === undefined) {
    keyBytes = itemSize(tombstoneOf(entity, MAX_ID, VERSION_FOR_SIZE));
    KEY_AND_VERSION_BYTES.set(entity, keyBytes);
  }
  return 3 * jsonLength + keyBytes;
}
