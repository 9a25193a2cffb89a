/**
 * The table side of ending access (SPEC 8): one attribute of the user's access-state item
 * (core/access-state.ts) set to the first whole second after now. Tokens carry `iat` in whole
 * seconds, so every token issued before the command has iat < t and is refused by the functions;
 * the command returns only once the clock has reached t, so every token issued after it returns
 * has iat >= t and is accepted.
 */
import { UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { accessStateWireKey } from '../core/access-state';

export interface NotBeforeWrite {
  /** The attribute written, e.g. `nbf` or `nbf:customer-readers`. */
  readonly attribute: string;
  /** Epoch seconds written. */
  readonly notBefore: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function writeNotBefore(options: {
  client: DynamoDBClient;
  tableName: string;
  sub: string;
  attribute: string;
  /** Tests: a clock. */
  now?: () => number;
}): Promise<NotBeforeWrite> {
  const now = options.now ?? Date.now;
  const notBefore = Math.floor(now() / 1000) + 1;
  await options.client.send(
    new UpdateItemCommand({
      TableName: options.tableName,
      Key: accessStateWireKey(options.sub),
      UpdateExpression: 'SET #a = :t',
      ExpressionAttributeNames: { '#a': options.attribute },
      ExpressionAttributeValues: { ':t': { N: String(notBefore) } },
    }),
  );
  const wait = notBefore * 1000 - now();
  if (wait > 0) await sleep(wait);
  return { attribute: options.attribute, notBefore };
}
