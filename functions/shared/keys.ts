/**
 * The single table's key design. Every record is one item collection under one partition key,
 * so that a GET is one Query:
 *
 * | entity            | pk          | sk                      |
 * |-------------------|-------------|-------------------------|
 * | transaction       | `TXN#<id>`  | `TXN`                   |
 * | currency line     | `TXN#<id>`  | `LINE#<line id, 16 digits zero-padded>` |
 * | customer profile  | `CUS#<id>`  | `CUS`                   |
 * | risk assessment   | `CUS#<id>`  | `RISK#<assessment id, 16 digits zero-padded>` |
 *
 * Zero-padding to 16 digits (2^53-1 has 16) makes the sort key order the numeric id order.
 */
export const PARTITION_KEY = 'pk';
export const SORT_KEY = 'sk';

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

export function childSortKey(entity: Entity, childId: bigint): string {
  return `${PREFIX[entity].child}${childId.toString().padStart(16, '0')}`;
}

export function isChildSortKey(entity: Entity, sk: string): boolean {
  return sk.startsWith(PREFIX[entity].child);
}
