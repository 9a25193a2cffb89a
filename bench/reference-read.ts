/**
 * The warm reference: what a GET sends to DynamoDB, with the stock client and nothing else. The
 * raw GetItem of the record's item (the same Document Client as bench/reference.ts) and
 * the raw access-state UpdateItem (as functions/shared/access.ts sends it: the caller's read
 * counted against the route's budget, started afresh when its slot holds an older window's
 * count), sent together in one
 * round trip (SPEC 6.1, 8). A bundle of its own (`ReferenceRead`, bench/bundles.ts), so that the
 * cold-start floor (`Reference`) stays one Document Client and one Query.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { accessStateKey, countReadRequest } from '../core/access-state.ts';
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

/** The raw access-state request of `sub` reading `pk`'s route, at the largest budget allowed. */
export const access = async (pk: string, sub: string) => {
  const window = windowStart(Math.floor(Date.now() / 1000), windowSeconds);
  const entity = entityOf(pk);
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
  const [, { Item }] = await Promise.all([access(pk, sub), getItem(pk)]);
  return Item;
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
