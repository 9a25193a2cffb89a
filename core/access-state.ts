/**
 * Where a staff user's access state lives (SPEC 8): one item per user in the records' own table,
 * so that a GET's Query of the record and its access-state request go to the same table.
 *
 * | pk             | sk       | attribute                 | written by            | meaning                                                                       |
 * |----------------|----------|---------------------------|-----------------------|-------------------------------------------------------------------------------|
 * | `USER#<sub>`   | `ACCESS` | `nbf`                     | `npm run access`      | epoch seconds; every token of the user with `iat` < nbf is void (401)         |
 * | `USER#<sub>`   | `ACCESS` | `nbf:<group>`             | `npm run access`      | epoch seconds; a token with `iat` < it has lost `<group>` (403 where needed)  |
 * | `USER#<sub>`   | `ACCESS` | `count:<route>:<window>`  | the functions         | reads of a route in the window starting at `<window>` (core/read-budgets.ts)   |
 *
 * `<sub>` is the Cognito user's `sub` claim: stable for the user's life, unlike a username or an
 * e-mail address, and present in every access token. No record item's partition key starts with
 * `USER#`, which is what lets IAM confine the functions' writes to these items
 * (`dynamodb:LeadingKeys`, lib/api-function.ts).
 */
import { PARTITION_KEY, SORT_KEY } from './layout';

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

/** Attribute: reads of an entity's route in the window that starts at `windowStart` (epoch s). */
export function readCounter(entity: string, windowStart: number): string {
  return `count:${entity}:${windowStart}`;
}

/** Attribute: tokens issued (iat) before this epoch second no longer carry `group`. */
export function groupNotBefore(group: string): string {
  return `${NOT_BEFORE}:${group}`;
}

/**
 * The parts of the UpdateItem that counts one read of `entity` in the window starting at
 * `window` (SPEC 8), but the key and the values `:one` (1) and `:budget`: one more read, unless
 * the budget is met; the last window's counter goes, so the item stays two counters large.
 */
export function countReadExpression(entity: string, window: number, windowSeconds: number) {
  return {
    UpdateExpression: 'ADD #count :one REMOVE #previous',
    ConditionExpression: 'attribute_not_exists(#count) OR #count < :budget',
    ExpressionAttributeNames: {
      '#count': readCounter(entity, window),
      '#previous': readCounter(entity, window - windowSeconds),
    },
  };
}
