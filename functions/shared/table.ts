/**
 * Access to the single table. Access patterns:
 * - Get One Transaction: Query pk = `TXN#<id>` -> the transaction item and its currency lines.
 * - Get One Customer: Query pk = `CUS#<id>` -> the profile and its risk assessments.
 * - Import: the same Query for the keys to replace, then BatchWriteItem (see import/).
 * Key layout: see keys.ts.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import {
  PARTITION_KEY,
  SORT_KEY,
  childSortKey,
  headSortKey,
  isChildSortKey,
  partitionKey,
  type Entity,
} from './keys';
import { ServiceUnavailableError } from './errors';
import { INTEGER_LITERAL } from './json';
import { Sha256 } from './sha256';

export type Item = Record<string, unknown>;

/** The array field that holds an entity's child items. */
export const CHILDREN: Record<Entity, string> = {
  transaction: 'transaction_currencies',
  customer: 'customer_risk_assessments',
};

export interface ClientOptions {
  region: string;
  endpoint?: string | undefined;
  /** Attempts in all, first try included; with the timeout it bounds a GET's time. */
  maxAttempts?: number;
  /** Per-attempt time limit, ms. */
  requestTimeoutMs?: number;
  /** Only for emulators; in AWS the SDK's default chain finds the credentials. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

/**
 * Every number a valid record stores is an integer, and comes back as a bigint. Any other number
 * is left as a JS number, which no record check accepts: a corrupt record (500), not a throw
 * inside the SDK that would look like a transport failure (503).
 */
export const wrapNumber = (n: string): bigint | number =>
  INTEGER_LITERAL.test(n) ? BigInt(n) : Number(n);

/** One client per process. Numbers come back as bigint: every stored number is an integer. */
export function createDocumentClient(options: ClientOptions): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    region: options.region,
    endpoint: options.endpoint,
    credentials: options.credentials,
    maxAttempts: options.maxAttempts ?? 3,
    // Request signing's hashes without Node.js 24's slow Buffer-keyed HMAC (see sha256.ts).
    sha256: Sha256,
    // Without throwOnRequestTimeout the SDK only warns on a timeout and waits on.
    requestHandler: {
      connectionTimeout: options.requestTimeoutMs ?? 1000,
      requestTimeout: options.requestTimeoutMs ?? 1000,
      throwOnRequestTimeout: true,
    },
  });
  return DynamoDBDocumentClient.from(client, {
    unmarshallOptions: { wrapNumbers: wrapNumber },
  });
}

const RETRYABLE_NAMES = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TimeoutError',
  'RequestTimeout',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
]);

const PROGRAMMING_ERRORS = new Set(['SyntaxError', 'TypeError', 'RangeError', 'ReferenceError']);

/**
 * Throttling, a DynamoDB-side failure, or no answer at all (an SDK error without an HTTP status
 * is a transport failure: refused, reset, timed out): worth a retry later, so a 503.
 */
export function isUnavailable(error: unknown): boolean {
  // Not `instanceof Error`: errors raised by Node's own modules can come from another realm.
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { name?: string; code?: string; $metadata?: { httpStatusCode?: number } };
  const status = e.$metadata?.httpStatusCode;
  return (
    (e.name !== undefined && RETRYABLE_NAMES.has(e.name)) ||
    (e.code !== undefined && RETRYABLE_NAMES.has(e.code)) ||
    // The SDK attaches $metadata to whatever its middleware throws; a JS error there is a bug.
    (e.$metadata !== undefined && status === undefined && !PROGRAMMING_ERRORS.has(e.name ?? '')) ||
    (status !== undefined && status >= 500)
  );
}

export interface Collection {
  head: Item | undefined;
  children: Item[];
}

/** The whole item collection of one record, in sort-key order, with the keys removed. */
export async function getCollection(
  client: DynamoDBDocumentClient,
  tableName: string,
  entity: Entity,
  id: bigint,
): Promise<Collection> {
  const result: Collection = { head: undefined, children: [] };
  let startKey: Item | undefined;
  try {
    // One request for any record within DynamoDB's 1 MB page; the loop only guards larger ones.
    do {
      const page = await client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: '#pk = :pk',
          ExpressionAttributeNames: { '#pk': PARTITION_KEY },
          ExpressionAttributeValues: { ':pk': partitionKey(entity, id) },
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) {
        const { [PARTITION_KEY]: _pk, [SORT_KEY]: sk, ...fields } = item;
        if (sk === headSortKey(entity)) result.head = fields;
        else if (typeof sk === 'string' && isChildSortKey(entity, sk)) result.children.push(fields);
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);
  } catch (error) {
    if (isUnavailable(error)) throw new ServiceUnavailableError();
    throw error;
  }
  return result;
}

/** A record as stored: the head's fields with its children under their array field. */
export function recordOf(entity: Entity, collection: Collection & { head: Item }): Item {
  return { ...collection.head, [CHILDREN[entity]]: collection.children };
}

/** The items that store a record: its head item and one item per child, keyed per keys.ts. */
export function itemsOf(entity: Entity, record: Item): Item[] {
  const { [CHILDREN[entity]]: children, ...head } = record;
  const pk = partitionKey(entity, record.id as bigint);
  return [
    { [PARTITION_KEY]: pk, [SORT_KEY]: headSortKey(entity), ...head },
    ...(children as Item[]).map((child) => ({
      [PARTITION_KEY]: pk,
      [SORT_KEY]: childSortKey(entity, child.id as bigint),
      ...child,
    })),
  ];
}
