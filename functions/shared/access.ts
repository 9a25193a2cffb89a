/**
 * The caller's access state (SPEC 8), checked on every GET by one UpdateItem of their item
 * (core/access-state.ts) sent together with the record's Query: it counts the read against the
 * route's budget and answers with the user's "not before" instants in the same round trip.
 */
import {
  UpdateItemCommand,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import {
  NOT_BEFORE,
  accessStateWireKey,
  countReadExpression,
  groupNotBefore,
} from '../../core/access-state';
import type { EntityDescriptor } from '../../core/entities';
import {
  budgetFor,
  retryAfterSeconds,
  windowStart,
  type ReadBudgets,
} from '../../core/read-budgets';
import { isUnavailable } from '../../core/unavailable';
import type { Caller } from './auth';
import {
  ForbiddenError,
  ServiceUnavailableError,
  TooManyRequestsError,
  UnauthorizedError,
} from './errors';

export interface AccessGate {
  /**
   * Resolves when the caller may read `entity` now; else throws the SPEC 4 error: 401 for a
   * voided token, 403 for a group the token no longer carries, 429 over budget, 503 when the
   * state cannot be read or written (never a read without the check).
   */
  check(caller: Caller, entity: EntityDescriptor): Promise<void>;
}

type StoredItem = Record<string, AttributeValue>;

/** An epoch-seconds attribute, or 0 when the access command never wrote it. */
function instant(item: StoredItem | undefined, name: string): number {
  const n = item?.[name]?.N;
  return n === undefined ? 0 : Number(n);
}

export function createAccessGate(
  client: DynamoDBClient,
  tableName: string,
  budgets: ReadBudgets,
  now: () => number = Date.now,
): AccessGate {
  return {
    async check(caller, entity) {
      const seconds = Math.floor(now() / 1000);
      const window = windowStart(seconds, budgets.windowSeconds);
      let item: StoredItem | undefined;
      let overBudget = false;
      try {
        const result = await client.send(
          new UpdateItemCommand({
            TableName: tableName,
            Key: accessStateWireKey(caller.sub),
            ...countReadExpression(entity.name, window, budgets.windowSeconds),
            ExpressionAttributeValues: {
              ':one': { N: '1' },
              ':budget': { N: String(budgetFor(budgets, entity.name)) },
            },
            ReturnValues: 'ALL_NEW',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        item = result.Attributes;
      } catch (error) {
        if ((error as { name?: string }).name === 'ConditionalCheckFailedException') {
          overBudget = true;
          // What the item held: the counter at the budget, and the "not before" instants.
          item = (error as { Item?: StoredItem }).Item;
        } else if (isUnavailable(error)) throw new ServiceUnavailableError();
        else throw error;
      }
      if (caller.issuedAt < instant(item, NOT_BEFORE)) throw new UnauthorizedError();
      // The handler has checked the token claims the group; this is whether it still may.
      const group = entity.readGroup;
      if (group !== undefined && caller.issuedAt < instant(item, groupNotBefore(group)))
        throw new ForbiddenError();
      if (overBudget)
        throw new TooManyRequestsError(retryAfterSeconds(seconds, budgets.windowSeconds));
    },
  };
}
