/**
 * The warm reference: what a GET sends to DynamoDB, with the stock client and nothing else. The
 * raw GetItem of the record's item (the same Document Client as bench/reference.ts) and
 * the raw access-state UpdateItem (as functions/shared/access.ts sends it: the caller's read
 * counted against the route's budget, started afresh when its slot holds an older window's
 * count), sent together in one
 * round trip (SPEC 6.1, 8). A bundle of its own (`ReferenceRead`, bench/bundles.ts), so that the
 * cold-start floor (`Reference`) stays one Document Client and one Query.
 *
 * A lookup's reference (`lookup`, SPEC 10): the raw Query of the same index, key condition and
 * Limit, sent together with the same access-state UpdateItem, then, when the page holds more than
 * one item, the raw UpdateItem that counts the rest (functions/shared/access.ts `grant.more`).
 */
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  COUNT_SCALE,
  accessStateKey,
  counterSlot,
  countReadRequest,
  readCounter,
} from '../core/access-state.ts';
import { ENTITIES } from '../core/entities.ts';
import {
  READ_BUDGET_LIMITS,
  readBudgetsFromEnv,
  windowStart,
  type BudgetedEntity,
} from '../core/read-budgets.ts';
import { client } from './reference.ts';

const { windowSeconds } = readBudgetsFromEnv(process.env);

/** The route a record's key belongs to, by its partition key's prefix (core/entities.ts). */
const entityOf = (pk: string): BudgetedEntity =>
  pk.startsWith(ENTITIES.customer.keys.partition) ? 'customer' : 'transaction';

/** The raw GetItem of one record's item, e.g. `TXN#1`. */
const getItem = (pk: string) =>
  client.send(
    new GetCommand({
      TableName: process.env.TABLE_NAME,
      Key: { pk, sk: ENTITIES[entityOf(pk)].keys.sort },
    }),
  );

const currentWindow = () => windowStart(Math.floor(Date.now() / 1000), windowSeconds);

/**
 * The raw access-state request of `sub` reading one `entity` in `window`, at the largest budget
 * allowed.
 */
export const access = async (
  entity: BudgetedEntity,
  sub: string,
  window: number = currentWindow(),
) => {
  const send = (step: 'count' | 'restart') =>
    client.send(
      new UpdateCommand({
        TableName: process.env.TABLE_NAME,
        Key: accessStateKey(sub),
        ...countReadRequest(step, entity, window, windowSeconds, READ_BUDGET_LIMITS.budgetMax),
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
  try {
    return await send('count');
  } catch (error) {
    if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
    return send('restart');
  }
};

/**
 * The access-state request and the GetItem of one GET, sent together (in the handler's order:
 * functions/shared/record-handler.ts); the item.
 */
export const read = async (pk: string, sub: string) => {
  const [, { Item }] = await Promise.all([access(entityOf(pk), sub), getItem(pk)]);
  return Item;
};

/** One lookup's Query (SPEC 10), as functions/shared/store.ts `queryIndex` asks for it. */
export interface LookupQuery {
  /** The kind of read each item counts as (the route's summaries). */
  entity: BudgetedEntity;
  index: string;
  partitionKey: string;
  sortKey: string;
  partition: string;
  /** `begins_with` on the sort key, when the lookup narrows by it (a last name). */
  sortPrefix?: string;
  /** Newest first (transactions); names ascending (customers). */
  descending: boolean;
  /** The summaries a page shows. */
  page: number;
  /** The Query's Limit: one more than the page, as the lookup asks (whether a next page follows). */
  limit: number;
}

/** The raw Query of one index page. */
const queryIndex = (q: LookupQuery) =>
  client.send(
    new QueryCommand({
      TableName: process.env.TABLE_NAME,
      IndexName: q.index,
      KeyConditionExpression:
        q.sortPrefix === undefined ? '#p = :p' : '#p = :p AND begins_with(#s, :s)',
      ExpressionAttributeNames: {
        '#p': q.partitionKey,
        ...(q.sortPrefix === undefined ? {} : { '#s': q.sortKey }),
      },
      ExpressionAttributeValues: {
        ':p': q.partition,
        ...(q.sortPrefix === undefined ? {} : { ':s': q.sortPrefix }),
      },
      ScanIndexForward: !q.descending,
      Limit: q.limit,
    }),
  );

/**
 * The raw UpdateItem that counts `reads` more reads in the window the first request counted in,
 * if the budget has room for them all (functions/shared/access.ts `add`). The benchmark's
 * budget always has room: a refusal is an error here, not a shorter page.
 */
const more = (entity: BudgetedEntity, sub: string, window: number, reads: number) => {
  const base = BigInt(window) * COUNT_SCALE;
  return client.send(
    new UpdateCommand({
      TableName: process.env.TABLE_NAME,
      Key: accessStateKey(sub),
      UpdateExpression: 'SET #count = #count + :reads',
      ConditionExpression: '#count >= :base AND #count <= :limit',
      ExpressionAttributeNames: {
        '#count': readCounter(entity, counterSlot(window, windowSeconds)),
      },
      ExpressionAttributeValues: {
        ':reads': BigInt(reads),
        ':base': base,
        ':limit': base + BigInt(READ_BUDGET_LIMITS.budgetMax - reads),
      },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    }),
  );
};

/**
 * A lookup as functions/shared/lookup-handler.ts sends it: the access-state request and the
 * index's Query together, then the rest of the page counted when it holds more than one item;
 * the page's items. `countRest` false leaves the second request out (what it costs, section 3b).
 */
export const lookup = async (q: LookupQuery, sub: string, countRest = true) => {
  const window = currentWindow();
  const [, { Items = [] }] = await Promise.all([access(q.entity, sub, window), queryIndex(q)]);
  const page = Items.slice(0, q.page);
  if (countRest && page.length > 1) await more(q.entity, sub, window, page.length - 1);
  return page;
};

/**
 * As a Lambda handler behind the authorizer: `pathParameters.pk` names the record's item; the
 * access state is the caller's (`sub` claim), under a `reference:` prefix so that it is an item
 * of its own, apart from the one the production routes count on.
 */
export const handler = async (event: {
  pathParameters?: { pk?: string };
  requestContext?: { authorizer?: { jwt?: { claims?: { sub?: unknown } } } };
}) => {
  const sub = event.requestContext?.authorizer?.jwt?.claims?.sub;
  const items = await read(event.pathParameters?.pk ?? '', `reference:${String(sub)}`);
  return { statusCode: 200, body: JSON.stringify(items) };
};
