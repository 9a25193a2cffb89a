/**
 * Stored items from DynamoDB's wire form (`{"S": ...}`, `{"N": ...}`, ...) to plain values, with
 * every integer a bigint: the GET path reads with the low-level client and converts here, in one
 * pass that also drops the keys, instead of through the Document Client (docs/performance.md,
 * "The warm path"). It gives what util-dynamodb's unmarshall with `wrapNumbers: wrapNumber` gives for
 * every type a record stores (test/unit/attribute-values.test.ts).
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { CorruptRecordError } from '../../core/records.ts';
import { INTEGER_LITERAL } from '../../core/json.ts';

/**
 * Every number a valid record stores is an integer, and comes back as a bigint. Any other number
 * is left as a JS number, which no record check accepts: a corrupt record (500), not a throw
 * inside the SDK that would look like a transport failure (503).
 */
export const wrapNumber = (n: string): bigint | number =>
  INTEGER_LITERAL.test(n) ? BigInt(n) : Number(n);

/** One attribute's value. Sets and binary, which no record stores, are a corrupt record (500). */
export function fromAttributeValue(value: AttributeValue): unknown {
  if (value.S !== undefined) return value.S;
  if (value.N !== undefined) return wrapNumber(value.N);
  if (value.M !== undefined) return fromAttributes(value.M);
  if (value.NULL !== undefined) return null;
  if (value.BOOL !== undefined) return value.BOOL;
  if (value.L !== undefined) return value.L.map(fromAttributeValue);
  // The type's name only: a stored value is never put in an error.
  throw new CorruptRecordError(`Stored item holds a DynamoDB ${Object.keys(value)[0]} value`);
}

/**
 * An item or map, leaving out the attributes named in `skip` (an item's keys). No record has a
 * `__proto__` field (the import refuses unknown fields), and assigning one would set the
 * object's prototype instead of a field the record checks could see: so it is a corrupt record.
 */
export function fromAttributes(
  attributes: Record<string, AttributeValue>,
  skip?: ReadonlySet<string>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // Own attributes only: never anything a polluted Object.prototype would add.
  for (const name of Object.keys(attributes)) {
    if (skip?.has(name)) continue;
    if (name === '__proto__') throw new CorruptRecordError('Stored item has a __proto__ attribute');
    out[name] = fromAttributeValue(attributes[name]!);
  }
  return out;
}
