/**
 * Access to the single table. Access patterns:
 * - Get One Transaction: Query pk = `TXN#<id>` -> the transaction item and its currency lines.
 * - Get One Customer: Query pk = `CUS#<id>` -> the profile and its risk assessments.
 * - Import: children, then the head (conditional PutItem), then a keys-only Query for the items
 *   of older versions to delete (see import/writer.ts).
 * Key layout: see keys.ts.
 */
import {
  DynamoDBClient,
  QueryCommand,
  type AttributeValue,
  type QueryCommandInput,
} from '@aws-sdk/client-dynamodb';
import { fromAttributes } from './attribute-values';
import {
  CHILD_COUNT,
  DELETED,
  PARTITION_KEY,
  SORT_KEY,
  VERSION,
  childSortKey,
  childVersion,
  headSortKey,
  partitionKey,
  type Entity,
} from './keys';
import { CorruptRecordError, ServiceUnavailableError } from './errors';
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
 * One client per process: the functions read with it, and the import's Document Client wraps it
 * (import/document-client.ts). Two settings spare each request work done for nothing
 * (docs/performance.md, "The warm path"): the SDK's logger middleware is removed, which masks
 * every answer, attribute by attribute, for a logger that is never set (about 0.45 ms of a
 * 50-line transaction's Query); and the middleware stack is resolved once, not on each send
 * (`cacheMiddleware`: nothing changes the stack after the first request; the Document Client,
 * which adds middleware per command, turns it off).
 */
export function createTableClient(options: ClientOptions, cacheMiddleware = true): DynamoDBClient {
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
    cacheMiddleware,
  });
  client.middlewareStack.remove('loggerMiddleware');
  return client;
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

type StoredItem = Record<string, AttributeValue>;

/**
 * One Query's view of a record's items: the head, and the children grouped by version, still in
 * DynamoDB's wire form: only the head's version's children are ever converted (see getCollection).
 */
interface Snapshot {
  head: Item | undefined;
  children: Map<string, StoredItem[]>;
}

/** An item's key attributes: not fields of the record. */
const KEYS = new Set([PARTITION_KEY, SORT_KEY]);

async function readItems(
  client: DynamoDBClient,
  tableName: string,
  entity: Entity,
  id: bigint,
  consistent: boolean,
): Promise<Snapshot> {
  const result: Snapshot = { head: undefined, children: new Map() };
  const head = headSortKey(entity);
  let startKey: QueryCommandInput['ExclusiveStartKey'];
  // One request for any record within DynamoDB's 1 MB page; the loop only guards larger ones.
  do {
    const page = await client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': PARTITION_KEY },
        ExpressionAttributeValues: { ':pk': { S: partitionKey(entity, id) } },
        ExclusiveStartKey: startKey,
        ...(consistent ? { ConsistentRead: true } : {}),
      }),
    );
    for (const item of page.Items ?? []) {
      const sk = item[SORT_KEY]?.S;
      if (sk === head) {
        result.head = fromAttributes(item, KEYS);
        continue;
      }
      const version = sk === undefined ? undefined : childVersion(entity, sk);
      if (version === undefined) continue;
      const list = result.children.get(version);
      if (list) list.push(item);
      else result.children.set(version, [item]);
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return result;
}

/** The head and its children, converted: only those of the version the GET returns. */
function collectionOf(head: Item, children: StoredItem[] = []): Collection {
  return { head, children: children.map((item) => fromAttributes(item, KEYS)) };
}

/** Reads in all for one GET at most: one in the common case, then consistent ones (see getCollection). */
export const MAX_READS = 4;

/**
 * A record exactly as one import left it (SPEC 6.1): the head and the children of the head's
 * version, in sort-key (= id) order, keys and version attributes removed; no head for a record
 * that does not exist or was deleted. A Query is not a snapshot: it may see a head whose
 * children are still being written, or whose children an import has just deleted. Then fewer
 * children than the head counts are seen, and the record is read again with ConsistentRead.
 * A torn view needs a head flip between the reads of the head and of its children, and a
 * version becomes head once and stops being head once: so two consistent reads that see the
 * same version incomplete mean the stored record is corrupt (500); a record replaced again and
 * again under the reader after MAX_READS reads is a 503 (try again).
 */
export async function getCollection(
  client: DynamoDBClient,
  tableName: string,
  entity: Entity,
  id: bigint,
): Promise<Collection> {
  let incomplete: string | undefined;
  for (let read = 1; ; read += 1) {
    let snapshot: Snapshot;
    try {
      snapshot = await readItems(client, tableName, entity, id, read > 1);
    } catch (error) {
      if (isUnavailable(error)) throw new ServiceUnavailableError();
      throw error;
    }
    const { head, children } = snapshot;
    if (head === undefined || head[DELETED] === true) return { head: undefined, children: [] };
    const { [VERSION]: version, [CHILD_COUNT]: count, ...fields } = head;
    // A head written before versions existed: its children are the unversioned ones.
    if (version === undefined) return collectionOf(fields, children.get(''));
    const mine = typeof version === 'string' ? (children.get(version) ?? []) : [];
    if (typeof version !== 'string' || typeof count !== 'bigint' || mine.length > count)
      throw new CorruptRecordError(`Stored ${entity} has a bad version or child count`);
    if (BigInt(mine.length) === count) return collectionOf(fields, mine);
    if (read > 1 && incomplete === version)
      throw new CorruptRecordError(`Stored ${entity} lacks children of its version`);
    if (read >= MAX_READS) throw new ServiceUnavailableError();
    incomplete = read > 1 ? version : undefined;
  }
}

/** A record as stored: the head's fields with its children under their array field. */
export function recordOf(entity: Entity, collection: Collection & { head: Item }): Item {
  return { ...collection.head, [CHILDREN[entity]]: collection.children };
}

/**
 * The items that store one version of a record: its children, then its head (written last,
 * conditionally, by the import: see import/writer.ts), keyed per keys.ts.
 */
export function itemsOf(
  entity: Entity,
  record: Item,
  version: string,
): { head: Item; children: Item[] } {
  const { [CHILDREN[entity]]: children, ...fields } = record;
  const pk = partitionKey(entity, record.id as bigint);
  const list = children as Item[];
  return {
    head: {
      [PARTITION_KEY]: pk,
      [SORT_KEY]: headSortKey(entity),
      ...fields,
      [VERSION]: version,
      [CHILD_COUNT]: BigInt(list.length),
    },
    children: list.map((child) => ({
      [PARTITION_KEY]: pk,
      [SORT_KEY]: childSortKey(entity, version, child.id as bigint),
      ...child,
    })),
  };
}

/** The head of a deleted record: a version, so that no older import can bring it back. */
export function tombstoneOf(entity: Entity, id: bigint, version: string): Item {
  return {
    [PARTITION_KEY]: partitionKey(entity, id),
    [SORT_KEY]: headSortKey(entity),
    [VERSION]: version,
    [DELETED]: true,
  };
}
