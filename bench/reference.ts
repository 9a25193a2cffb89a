/**
 * The reference the functions are measured against: the least a GET can be, one DynamoDB
 * Document Client and one Query of an item collection, built with the production bundle options.
 * The client is made at init, as the functions make theirs. This is the floor of the cold start
 * and of the first response; the warm overhead is measured against bench/reference-read.ts (the
 * same client and Query, plus the access-state request), a bundle of its own so that this one
 * stays the floor.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';

/** The stock Document Client (bench/reference-read.ts sends over it too). */
export const client = DynamoDBDocumentClient.from(
  new DynamoDBClient({ region: process.env.AWS_REGION, endpoint: process.env.DYNAMODB_ENDPOINT }),
);

/** The raw Query of one item collection, e.g. `TXN#1`. */
export const query = (pk: string) =>
  client.send(
    new QueryCommand({
      TableName: process.env.TABLE_NAME,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': 'pk' },
      ExpressionAttributeValues: { ':pk': pk },
    }),
  );

/** As a Lambda handler: `pathParameters.pk` names the item collection. */
export const handler = async (event: { pathParameters?: { pk?: string } }) => {
  const { Items } = await query(event.pathParameters?.pk ?? '');
  return { statusCode: 200, body: JSON.stringify(Items) };
};
