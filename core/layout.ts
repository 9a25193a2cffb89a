/**
 * The single table's layout. Every record is one item collection under one partition key, so
 * that a GET is one Query:
 *
 * | item              | pk          | sk                                          |
 * |-------------------|-------------|---------------------------------------------|
 * | transaction       | `TXN#<id>`  | `TXN`                                       |
 * | currency line     | `TXN#<id>`  | `LINE#<version>#<line id, 16 digits>`       |
 * | customer profile  | `CUS#<id>`  | `CUS`                                       |
 * | risk assessment   | `CUS#<id>`  | `RISK#<version>#<assessment id, 16 digits>` |
 *
 * (prefixes per entity in ./entities). The head item carries the record's version (`v`) and its
 * number of children (`n`); a tombstone head (`deleted`) marks a deleted record. Children of two
 * versions coexist while an import replaces a record; readers keep only the head's
 * (docs/architecture.md). Zero-padding ids to 16 digits (2^53-1 has 16) makes the sort key order
 * the numeric id order.
 *
 * Access patterns:
 * - Get One Transaction / Customer: Query pk -> the head and its children (functions/shared/store.ts).
 * - Import: children, then the head (conditional PutItem), then a keys-only Query for the items
 *   of older versions to delete (import/writer.ts).
 */
import { randomBytes } from 'node:crypto';
import type { EntityDescriptor } from './entities';

export const PARTITION_KEY = 'pk';
export const SORT_KEY = 'sk';
/** Head attributes: the version whose children make the record, and how many there are. */
export const VERSION = 'v';
export const CHILD_COUNT = 'n';
export const DELETED = 'deleted';

export type Item = Record<string, unknown>;

export function partitionKey(entity: EntityDescriptor, id: bigint): string {
  return `${entity.keys.partition}${id}`;
}

export function childSortKey(entity: EntityDescriptor, version: string, childId: bigint): string {
  return `${entity.keys.child}${version}#${childId.toString().padStart(16, '0')}`;
}

/** The version in a child's sort key, or undefined for any other item (the head). */
export function childVersion(entity: EntityDescriptor, sk: string): string | undefined {
  const prefix = entity.keys.child;
  if (!sk.startsWith(prefix)) return undefined;
  const hash = sk.indexOf('#', prefix.length);
  return hash < 0 ? undefined : sk.slice(prefix.length, hash);
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

/**
 * The items that store one version of a record: its children, then its head (written last,
 * conditionally, by the import: see import/writer.ts).
 */
export function itemsOf(
  entity: EntityDescriptor,
  record: Item,
  version: string,
): { head: Item; children: Item[] } {
  const { [entity.children]: children, ...fields } = record;
  const pk = partitionKey(entity, record.id as bigint);
  const list = children as Item[];
  return {
    head: {
      [PARTITION_KEY]: pk,
      [SORT_KEY]: entity.keys.head,
      ...fields,
      [VERSION]: version,
      [CHILD_COUNT]: BigInt(list.length),
    },
    children: list.map((child) => ({
      [PARTITION_KEY]: pk,
      [SORT_KEY]: childSortKey(entity, version, child.id as bigint),
      ...child,
    })),
  };
}

/** The head of a deleted record: a version, so that no older import can bring it back. */
export function tombstoneOf(entity: EntityDescriptor, id: bigint, version: string): Item {
  return {
    [PARTITION_KEY]: partitionKey(entity, id),
    [SORT_KEY]: entity.keys.head,
    [VERSION]: version,
    [DELETED]: true,
  };
}
