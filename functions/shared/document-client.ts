/**
 * The Document Client the import steps write with (and the tests and local tools check the
 * table with): the functions' table client (../sdk/table-client.ts) wrapped, numbers read back
 * as the functions read them, integers as bigint.
 */
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { wrapNumber } from '../sdk/attribute-values.ts';
import { createTableClient, type ClientOptions } from '../sdk/table-client.ts';

export function createDocumentClient(options: ClientOptions): DynamoDBDocumentClient {
  // Its commands add their own middleware, so the stack is not cached (the SDK refuses it).
  return DynamoDBDocumentClient.from(createTableClient(options, false), {
    unmarshallOptions: { wrapNumbers: wrapNumber },
  });
}
