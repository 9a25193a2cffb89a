/**
 * Where a staff user's access state lives (SPEC 8): one item per user in the records' own table,
 * so that a GET's GetItem of the record and its access-state request go to the same table.
 *
 * | pk           | sk       | attribute                | written by       | meaning                                                                      |
 * |--------------|----------|--------------------------|------------------|------------------------------------------------------------------------------|
 * | `USER#<sub>` | `ACCESS` | `nbf`                    | `npm run access` | epoch seconds; every token of the user with `iat` < nbf is void (401)        |
 * | `USER#<sub>` | `ACCESS` | `nbf:<group>`            | `npm run access` | epoch seconds; a token with `iat` < it has lost `<group>` (403 where needed) |
 * | `USER#<sub>` | `ACCESS` | `reads:<entity>:<slot>`  | the functions    | `window start × COUNT_SCALE + reads` of the route in that window             |
 *
 * Why the item stays small: a route's reads are counted in one of COUNTER_SLOTS slots (the
 * window's number modulo the slot count), and every count clears the route's other slots; the
 * counter carries its window, so a slot left over from an older window is recognised and started
 * afresh, never counted. A user's item holds at most two `nbf` instants and one counter per
 * route, however their reads are spread over the years: a small item, 1 write unit per GET
 * (docs/performance.md, "The access state over the years").
 *
 * `<sub>` is the Cognito user's `sub` claim: stable for the user's life, unlike a username or an
 * e-mail address, and present in every access token. No record item's partition key starts with
 * `USER#`, which is what lets IAM confine the functions' writes to these items
 * (`dynamodb:LeadingKeys`, lib/project-function.ts).
 */
import { PARTITION_KEY, SORT_KEY } from './layout.ts';

/** Prefix of every access-state partition key; the functions may write under it only. */
export const ACCESS_PARTITION_PREFIX = 'USER#';
/** The sort key of a user's one access-state item. */
export const ACCESS_SORT_KEY = 'ACCESS';
/** Attribute: tokens issued (iat) before this epoch second are void. */
export const NOT_BEFORE = 'nbf';

/** The key of a user's access-state item, by the user's Cognito `sub`. */
export function accessStateKey(sub: string): { pk: string; sk: string } {
  if (sub === '') throw new Error('accessStateKey: empty sub');
  return { [PARTITION_KEY]: `${ACCESS_PARTITION_PREFIX}${sub}`, [SORT_KEY]: ACCESS_SORT_KEY };
}

/** The same key as DynamoDB's low-level API takes it: each attribute a `{ S: value }`. */
export function accessStateWireKey(sub: string): Record<string, { S: string }> {
  const key = accessStateKey(sub);
  return { [PARTITION_KEY]: { S: key.pk }, [SORT_KEY]: { S: key.sk } };
}

/** Attribute: tokens issued (iat) before this epoch second no longer carry `group`. */
export function groupNotBefore(group: string): string {
  return `${NOT_BEFORE}:${group}`;
}

/**
 * Counter slots per route. A read in a new window finds its slot empty unless the route's last
 * read was a multiple of this many windows ago; then the slot holds an older window's count, and
 * the read takes a second request to start it afresh (`restart`). With 32 slots (2 h 40 min of
 * 5-minute windows) that is a small share of a sporadic reader's GETs, a larger one with 16 or 8
 * (docs/performance.md, from bench/access-state-candidates.ts); a larger request is all the slots
 * cost (`REMOVE` of the others).
 */
export const COUNTER_SLOTS = 32;
/** A counter's value: `window start × COUNT_SCALE + reads`; above every budget allowed. */
export const COUNT_SCALE = 1_000_000n;

/** Attribute: the counter of an entity's route in `slot`. */
export function readCounter(entity: string, slot: number): string {
  return `reads:${entity}:${slot}`;
}

/** The slot of the window starting at `window` (epoch seconds). */
export function counterSlot(window: number, windowSeconds: number): number {
  return (window / windowSeconds) % COUNTER_SLOTS;
}

/** What a counter's value says: the window it counts (its first epoch second) and the reads. */
export function counterValue(value: bigint): { window: number; reads: number } {
  return { window: Number(value / COUNT_SCALE), reads: Number(value % COUNT_SCALE) };
}

/**
 * The UpdateItem that counts one read of `entity` in the window starting at `window` (SPEC 8),
 * but the key: the item's other fields are the caller's. `count` adds one to the window's
 * counter, on condition that it is below the budget and of this window (or absent); `restart`
 * sets it to this window's first read, on condition that it is of an older window (or absent).
 * Both clear the route's other slots. Values are bigints (the Document Client's form; the
 * functions send them as `{ N }`).
 */
export function countReadRequest(
  step: 'count' | 'restart',
  entity: string,
  window: number,
  windowSeconds: number,
  budget: number,
) {
  const slot = counterSlot(window, windowSeconds);
  const names: Record<string, string> = { '#count': readCounter(entity, slot) };
  const others: string[] = [];
  for (let other = 0; other < COUNTER_SLOTS; other += 1) {
    if (other === slot) continue;
    names[`#s${other}`] = readCounter(entity, other);
    others.push(`#s${other}`);
  }
  const base = BigInt(window) * COUNT_SCALE;
  const remove = `REMOVE ${others.join(', ')}`;
  return step === 'count'
    ? {
        UpdateExpression: `SET #count = if_not_exists(#count, :base) + :one ${remove}`,
        ConditionExpression:
          'attribute_not_exists(#count) OR (#count >= :base AND #count < :limit)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':base': base, ':one': 1n, ':limit': base + BigInt(budget) },
      }
    : {
        UpdateExpression: `SET #count = :first ${remove}`,
        ConditionExpression: 'attribute_not_exists(#count) OR #count < :base',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':base': base, ':first': base + 1n },
      };
}
