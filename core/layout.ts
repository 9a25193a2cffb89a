/**
 * The single table's layout. A record is one item, its children a list attribute in ascending
 * id order, so that one write replaces it whole and a GET is one GetItem (SPEC 6, 6.1):
 *
 * | item        | pk          | sk    | attributes                                          |
 * |-------------|-------------|-------|-----------------------------------------------------|
 * | transaction | `TXN#<id>`  | `TXN` | its fields, `transaction_currencies`, index keys, `v`, PRIOR's |
 * | customer    | `CUS#<id>`  | `CUS` | its fields, `customer_risk_assessments`, index keys, `v`, PRIOR's |
 * | deleted     | as above    |       | `v`, `deleted: true`, `expiresAt` (a tombstone), PRIOR's |
 *
 * (prefixes per entity in ./entities; access-state items, `USER#...`, in ./access-state). `v` is
 * the version of the import that wrote the item (./import-version.ts); a write goes through only
 * over a version lower than its own, so a record ends as the file put later left it, whatever
 * order the writes land in (import/writer.ts). A tombstone holds that order for deletions until
 * every earlier import's horizon has passed, then DynamoDB's TTL removes it (`expiresAt`).
 *
 * Access patterns:
 * - Get One Transaction / Customer: GetItem pk, sk (functions/shared/store.ts).
 * - Import: UpdateItem of the record or its tombstone, on condition, setting every attribute
 *   (itemAttributesOf: those it does not hold removed) and keeping PRIOR's, returning the old item
 *   (import/writer.ts). The record's item carries its index keys (./lookups.ts), a tombstone none.
 * - The lookups of SPEC 10: Query of a global secondary index (./lookups.ts,
 *   functions/shared/store.ts).
 */
import type { EntityDescriptor } from './entities.ts';
import { MAX_KEY_BYTES } from './file-keys.ts';
import { INDEX_ATTRIBUTES, indexKeysOf } from './lookups.ts';

export const PARTITION_KEY = 'pk';
export const SORT_KEY = 'sk';
/** The version of the import that wrote the item (./import-version.ts). */
export const VERSION = 'v';
export const DELETED = 'deleted';
/** The table's TTL attribute (epoch seconds): only tombstones carry it. */
export const EXPIRES_AT = 'expiresAt';

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

/** The item that stores a record (its children already in ascending id order). */
export function itemOf(entity: EntityDescriptor, record: Item, version: string): Item {
  return {
    ...keyOf(entity, record.id as bigint),
    ...record,
    ...indexKeysOf(entity.name, record),
    [VERSION]: version,
  };
}

/**
 * The item of a deleted record: a version, so that no earlier import can bring it back while one
 * may still write, and when DynamoDB's TTL may remove it after that (epoch seconds:
 * ./import-version.ts tombstoneExpiry).
 */
export function tombstoneOf(
  entity: EntityDescriptor,
  id: bigint,
  version: string,
  expiresAt: number,
): Item {
  return {
    ...keyOf(entity, id),
    [VERSION]: version,
    [DELETED]: true,
    [EXPIRES_AT]: BigInt(expiresAt),
  };
}

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');

/**
 * What an item keeps of the items before it: under `was_`, the version, deletion mark and file
 * keys of the item it replaced; under `was2_`, those of the one that item replaced (null where
 * there was none, false where the item replaced kept no PRIOR's: not known). A write whose
 * answer was lost learns from them what it replaced, even once a later file's write has
 * replaced it in turn (import/writer.ts). Not fields of the record.
 */
export const PRIOR = ['was', 'was2'] as const;
export type PriorLevel = 0 | 1;

/** The attributes PRIOR keeps of an item, by their own name. */
export const priorSources = (entity: EntityDescriptor): string[] => [
  VERSION,
  DELETED,
  ...entity.fileFields,
];

export const priorAttribute = (level: PriorLevel, source: string): string =>
  `${PRIOR[level]}_${source}`;

/** Every PRIOR attribute an item of `entity` holds. */
export const priorAttributesOf = (entity: EntityDescriptor): string[] =>
  ([0, 1] as const).flatMap((level) => priorSources(entity).map((s) => priorAttribute(level, s)));

/**
 * Every attribute an item of `entity` may hold but its key and PRIOR's: a write sets those of
 * its item and removes the others, so that it replaces the item whole.
 */
export const itemAttributesOf = (entity: EntityDescriptor): string[] => [
  ...entity.check(() => undefined).fields,
  ...Object.values(INDEX_ATTRIBUTES),
  VERSION,
  DELETED,
  EXPIRES_AT,
];

/**
 * The most PRIOR's attributes add to an item, counted as itemSize counts: each file key at
 * S3's limit, a version as long as `version`.
 */
export function priorBytes(entity: EntityDescriptor, version: string): number {
  const size = (source: string) =>
    source === VERSION ? utf8(version) : source === DELETED ? 1 : MAX_KEY_BYTES;
  let bytes = 0;
  for (const level of [0, 1] as const)
    for (const source of priorSources(entity))
      bytes += utf8(priorAttribute(level, source)) + size(source);
  return bytes;
}

/**
 * A number's size: a byte for each pair of digits, the pairs aligned on the decimal point, leading
 * and trailing zero pairs left out, one byte more, and a byte for a minus sign. DynamoDB documents
 * only "approximately one byte per two significant digits, plus one"; this counts as the widely
 * used item size calculators do where they are high (the sign a byte of its own, pairs aligned on
 * the point), so it errs high by a byte or two at most, never low.
 */
function numberSize(value: bigint | number): number {
  const text = String(value);
  const negative = text.startsWith('-');
  const [whole = '', fraction = ''] = (negative ? text.slice(1) : text).split('.');
  const digits = `${whole.length % 2 ? '0' : ''}${whole}${fraction}${fraction.length % 2 ? '0' : ''}`;
  const pairs = digits.match(/../g) ?? [];
  let [first, end] = [0, pairs.length];
  while (first < end && pairs[first] === '00') first += 1;
  while (end > first && pairs[end - 1] === '00') end -= 1;
  return Math.max(1, end - first) + 1 + (negative ? 1 : 0);
}

/**
 * A value's size as DynamoDB counts it (Developer Guide, "DynamoDB item sizes and formats"):
 * strings their UTF-8 bytes; numbers as numberSize; null and booleans 1; a list or map 3 bytes,
 * plus 1 byte and the size of each element (a map's with its name).
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
