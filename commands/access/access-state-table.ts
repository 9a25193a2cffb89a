/**
 * The table side of ending access (SPEC 8): one attribute of the user's access-state item
 * (core/access-state.ts) set to an epoch second taken from Cognito's clock (commands/access/server-clock.ts).
 * The functions refuse a token whose `iat` is below it. The write never moves the instant back:
 * a re-run, or two operators at once, leave the later of the two.
 */
import { UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { accessStateWireKey } from '../../core/access-state.ts';

export interface NotBeforeWrite {
  /** The attribute written, e.g. `nbf` or `nbf:customer-readers`. */
  readonly attribute: string;
  /** Epoch seconds now stored (the later one, when the item already held a later one). */
  readonly notBefore: number;
}

export async function writeNotBefore(options: {
  client: DynamoDBClient;
  tableName: string;
  sub: string;
  attribute: string;
  /** Epoch seconds, from Cognito's clock. */
  notBefore: number;
}): Promise<NotBeforeWrite> {
  const { attribute, notBefore } = options;
  try {
    await options.client.send(
      new UpdateItemCommand({
        TableName: options.tableName,
        Key: accessStateWireKey(options.sub),
        UpdateExpression: 'SET #a = :t',
        ConditionExpression: 'attribute_not_exists(#a) OR #a < :t',
        ExpressionAttributeNames: { '#a': attribute },
        ExpressionAttributeValues: { ':t': { N: String(notBefore) } },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { attribute, notBefore };
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    // Already at or past it: what stands voids at least as much.
    const stored = (error as { Item?: Record<string, { N?: string }> }).Item?.[attribute]?.N;
    return { attribute, notBefore: stored === undefined ? notBefore : Number(stored) };
  }
}
