/**
 * The single table's key design. Every record is one item collection under one partition key,
 * so that a GET is one Query:
 *
 * | entity            | pk          | sk                                          |
 * |-------------------|-------------|---------------------------------------------|
 * | transaction       | `TXN#<id>`  | `TXN`                                       |
 * | currency line     | `TXN#<id>`  | `LINE#<version>#<line id, 16 digits>`       |
 * | customer profile  | `CUS#<id>`  | `CUS`                                       |
 * | risk assessment   | `CUS#<id>`  | `RISK#<version>#<assessment id, 16 digits>` |
 *
 * The head item (`TXN`, `CUS`) carries the record's version (`v`) and its number of children
 * (`n`); a tombstone head (`deleted`) marks a deleted record. Children of two versions coexist
 * while an import replaces a record; readers keep only the head's (docs/architecture.md).
 * Zero-padding ids to 16 digits (2^53-1 has 16) makes the sort key order the numeric id order.
 * Children written before versions existed (`LINE#<id>`) have the empty version.
 */
import { randomBytes } from 'node:crypto';

export const PARTITION_KEY = 'pk';
export const SORT_KEY = 'sk';
/** Head attributes: the version whose children make the record, and how many there are. */
export const VERSION = 'v';
export const CHILD_COUNT = 'n';
export const DELETED = 'deleted';

export type Entity = 'transaction' | 'customer';

const PREFIX: Record<Entity, { pk: string; head: string; child: string }> = {
  transaction: { pk: 'TXN#', head: 'TXN', child: 'LINE#' },
  customer: { pk: 'CUS#', head: 'CUS', child: 'RISK#' },
};

export function partitionKey(entity: Entity, id: bigint): string {
  return `${PREFIX[entity].pk}${id}`;
}

export function headSortKey(entity: Entity): string {
  return PREFIX[entity].head;
}

export function childSortKey(entity: Entity, version: string, childId: bigint): string {
  return `${PREFIX[entity].child}${version}#${childId.toString().padStart(16, '0')}`;
}

/** The version of a child's sort key ('' for a child written before versions), or undefined for a head. */
export function childVersion(entity: Entity, sk: string): string | undefined {
  const prefix = PREFIX[entity].child;
  if (!sk.startsWith(prefix)) return undefined;
  const hash = sk.indexOf('#', prefix.length);
  return hash < 0 ? '' : sk.slice(prefix.length, hash);
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
