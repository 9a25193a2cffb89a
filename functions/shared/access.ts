/**
 * The caller's access state (SPEC 8), checked on every GET by one UpdateItem of their item
 * (core/access-state.ts) sent together with the record's GetItem: it counts the read against the
 * route's budget and answers with the user's "not before" instants in the same round trip. A
 * second request is needed only when the route's counter slot holds an older window's count
 * (it is started afresh), or when a race moved the counter under us.
 */
import {
  UpdateItemCommand,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import {
  COUNT_SCALE,
  NOT_BEFORE,
  accessStateWireKey,
  counterSlot,
  counterValue,
  countReadRequest,
  groupNotBefore,
  readCounter,
} from '../../core/access-state.ts';
import type { EntityDescriptor } from '../../core/entities.ts';
import {
  budgetFor,
  retryAfterSeconds,
  windowStart,
  type ReadBudgets,
} from '../../core/read-budgets.ts';
import type { Caller } from './auth.ts';
import {
  ForbiddenError,
  ServiceUnavailableError,
  TooManyRequestsError,
  UnauthorizedError,
} from './errors.ts';

export interface AccessGate {
  /**
   * Resolves when the caller may read one record of `entity` now, counting that read; else
   * throws the SPEC 4 error: 401 for a voided token, 403 for a group the token no longer carries
   * (`group`, by default the entity's), 429 over budget, 503 when the state cannot be read or
   * written (never a read without the check). The grant counts more reads of the same window.
   */
  check(caller: Caller, entity: EntityDescriptor, group?: string): Promise<Grant>;
}

export interface Grant {
  /**
   * Counts up to `reads` more reads in the window of the check, as many as the budget has left:
   * how many it counted (0 when none is left, or the window has ended).
   */
  more(reads: number): Promise<number>;
}

type StoredItem = Record<string, AttributeValue>;

/** Requests one check may take (a restart, a lost race). */
const MAX_REQUESTS = 4;

/** An epoch-seconds attribute, or 0 when the access command never wrote it. */
function instant(item: StoredItem | undefined, name: string): number {
  const n = item?.[name]?.N;
  return n === undefined ? 0 : Number(n);
}

const isNamed = (error: unknown, name: string) => (error as { name?: string }).name === name;

export function createAccessGate(
  client: DynamoDBClient,
  tableName: string,
  budgets: ReadBudgets,
  now: () => number = Date.now,
): AccessGate {
  /** One step of the count; the item after it, or before it when its condition failed. */
  async function send(
    step: 'count' | 'restart',
    sub: string,
    entity: EntityDescriptor,
    window: number,
  ): Promise<{ item: StoredItem | undefined; refused: boolean }> {
    const { ExpressionAttributeValues: values, ...expression } = countReadRequest(
      step,
      entity.name,
      window,
      budgets.windowSeconds,
      budgetFor(budgets, entity.name),
    );
    try {
      const result = await client.send(
        new UpdateItemCommand({
          TableName: tableName,
          Key: accessStateWireKey(sub),
          ...expression,
          ExpressionAttributeValues: Object.fromEntries(
            Object.entries(values).map(([name, value]) => [name, { N: String(value) }]),
          ),
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { item: result.Attributes, refused: false };
    } catch (error) {
      // What the item held: the counter that refused, and the "not before" instants.
      if (isNamed(error, 'ConditionalCheckFailedException'))
        return { item: (error as { Item?: StoredItem }).Item, refused: true };
      throw error;
    }
  }

  /**
   * Counts the read: the item it leaves (or found, over budget), whether the budget was met, and
   * the instant the verdict is for. Fails closed: 503 when the state cannot be read or written.
   */
  async function count(sub: string, entity: EntityDescriptor) {
    let seconds = Math.floor(now() / 1000);
    let window = windowStart(seconds, budgets.windowSeconds);
    let step: 'count' | 'restart' = 'count';
    for (let request = 1; request <= MAX_REQUESTS; request += 1) {
      const { item, refused } = await send(step, sub, entity, window);
      if (!refused) return { item, overBudget: false, seconds, window };
      const raw = item?.[readCounter(entity.name, counterSlot(window, budgets.windowSeconds))]?.N;
      const stored = raw === undefined ? undefined : counterValue(BigInt(raw));
      if (stored === undefined || stored.window < window) step = 'restart';
      else if (stored.window > window) {
        // Counted in a later window by an instance whose clock is ahead: count there too.
        window = windowStart(stored.window, budgets.windowSeconds);
        seconds = Math.max(seconds, window);
        step = 'count';
      } else if (stored.reads >= budgetFor(budgets, entity.name))
        return { item, overBudget: true, seconds, window };
      else step = 'count';
    }
    throw new ServiceUnavailableError();
  }

  /** Adds `reads` to the window's counter if the budget has room for them all. */
  async function add(sub: string, entity: EntityDescriptor, window: number, reads: number) {
    const base = BigInt(window) * COUNT_SCALE;
    const limit = base + BigInt(budgetFor(budgets, entity.name) - reads);
    try {
      await client.send(
        new UpdateItemCommand({
          TableName: tableName,
          Key: accessStateWireKey(sub),
          UpdateExpression: 'SET #count = #count + :reads',
          ConditionExpression: '#count >= :base AND #count <= :limit',
          ExpressionAttributeNames: {
            '#count': readCounter(entity.name, counterSlot(window, budgets.windowSeconds)),
          },
          ExpressionAttributeValues: {
            ':reads': { N: String(reads) },
            ':base': { N: String(base) },
            ':limit': { N: String(limit) },
          },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { added: true, item: undefined };
    } catch (error) {
      if (!isNamed(error, 'ConditionalCheckFailedException')) throw error;
      return { added: false, item: (error as { Item?: StoredItem }).Item };
    }
  }

  /** The reads of `window` the item's counter holds; undefined for another window's or none. */
  function readsIn(item: StoredItem | undefined, entity: EntityDescriptor, window: number) {
    const raw = item?.[readCounter(entity.name, counterSlot(window, budgets.windowSeconds))]?.N;
    const stored = raw === undefined ? undefined : counterValue(BigInt(raw));
    return stored?.window === window ? stored.reads : undefined;
  }

  /** `left`: what the budget had left after the check's own read, as its answer said. */
  function grant(sub: string, entity: EntityDescriptor, window: number, left: number): Grant {
    return {
      async more(wanted) {
        const budget = budgetFor(budgets, entity.name);
        let reads = Math.min(wanted, left);
        for (let request = 1; reads > 0 && request <= MAX_REQUESTS; request += 1) {
          const { added, item } = await add(sub, entity, window, reads);
          if (added) return reads;
          // What is left of this window's budget now: another request may have taken some.
          const done = readsIn(item, entity, window);
          if (done === undefined) return 0;
          reads = Math.min(reads, budget - done);
        }
        return 0;
      },
    };
  }

  return {
    async check(caller, entity, group = entity.readGroup) {
      // Fails closed: a state that cannot be read or written is the handler's 503 (./http.ts).
      const { item, overBudget, seconds, window } = await count(caller.sub, entity);
      if (caller.issuedAt < instant(item, NOT_BEFORE)) throw new UnauthorizedError();
      // The handler has checked the token claims the group; this is whether it still may.
      if (group !== undefined && caller.issuedAt < instant(item, groupNotBefore(group)))
        throw new ForbiddenError();
      if (overBudget)
        throw new TooManyRequestsError(retryAfterSeconds(seconds, budgets.windowSeconds));
      const done = readsIn(item, entity, window) ?? budgetFor(budgets, entity.name);
      return grant(caller.sub, entity, window, budgetFor(budgets, entity.name) - done);
    },
  };
}
