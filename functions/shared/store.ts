/**
 * The functions' read of the table (layout: core/layout.ts): one GetItem of a record's item,
 * which an import wrote whole (SPEC 6.1).
 */
import {
  GetItemCommand,
  QueryCommand,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import type { EntityDescriptor } from '../../core/entities.ts';
import {
  DELETED,
  PARTITION_KEY,
  SORT_KEY,
  VERSION,
  partitionKey,
  type Item,
} from '../../core/layout.ts';
import { INDEX_ATTRIBUTES } from '../../core/lookups.ts';
import { fromAttributes } from '../sdk/attribute-values.ts';
import { CorruptRecordError } from './errors.ts';
import type { StartKey } from './cursor.ts';
import type { LookupRequest } from './lookup-requests.ts';

/** An item's attributes that are not fields of the record. */
const NOT_FIELDS = new Set<string>([
  PARTITION_KEY,
  SORT_KEY,
  VERSION,
  ...Object.values(INDEX_ATTRIBUTES),
]);

/** One summary as the index holds it, and the key a page that ends with it goes on from. */
export interface IndexEntry {
  readonly fields: Item;
  readonly key: StartKey;
}

export interface IndexPage {
  readonly entries: IndexEntry[];
  /** Where the next page starts; undefined when the index has no more. */
  readonly next: StartKey | undefined;
}

export interface RecordStore {
  /** The record as stored (files as keys, times in UTC), its children nested; undefined when there is none. */
  readRecord(entity: EntityDescriptor, id: bigint): Promise<Item | undefined>;
  /** One page of a lookup's index (SPEC 10): one Query, at most `limit` entries. */
  queryIndex(request: LookupRequest, limit: number, start?: StartKey): Promise<IndexPage>;
}

/** A key's attributes as strings (every key attribute of the table and its indexes is one). */
function keyOf(item: Record<string, AttributeValue>, names: readonly string[]): StartKey {
  const key: StartKey = {};
  for (const name of names) {
    const value = item[name]?.S;
    if (value === undefined) throw new CorruptRecordError(`Index entry without its ${name}`);
    key[name] = value;
  }
  return key;
}

const toWire = (key: StartKey): Record<string, AttributeValue> =>
  Object.fromEntries(Object.entries(key).map(([name, value]) => [name, { S: value }]));

export function createStore(client: DynamoDBClient, tableName: string): RecordStore {
  /** The record, or nothing for one that does not exist or was deleted. */
  async function readRecord(entity: EntityDescriptor, id: bigint): Promise<Item | undefined> {
    // A store that cannot answer is the handler's 503 (./http.ts), as every such error is.
    const { Item: stored } = await client.send(
      new GetItemCommand({
        TableName: tableName,
        Key: {
          [PARTITION_KEY]: { S: partitionKey(entity, id) },
          [SORT_KEY]: { S: entity.keys.sort },
        },
      }),
    );
    if (stored === undefined || stored[DELETED]?.BOOL === true) return undefined;
    // The record under another record's key is served as no other record: a 500 (SPEC 4).
    if (stored.id?.N !== String(id))
      throw new CorruptRecordError(`Stored ${entity.name} holds another id than its key's`);
    return fromAttributes(stored, NOT_FIELDS);
  }

  async function queryIndex(
    request: LookupRequest,
    limit: number,
    start?: StartKey,
  ): Promise<IndexPage> {
    const { index } = request;
    const keyNames = [PARTITION_KEY, SORT_KEY, index.partitionKey, index.sortKey];
    const values: Record<string, AttributeValue> = { ':p': { S: request.partition } };
    let condition = '#p = :p';
    if (request.sortPrefix !== undefined) {
      values[':s'] = { S: request.sortPrefix };
      condition += ' AND begins_with(#s, :s)';
    }
    if (request.filter !== undefined) values[':f'] = { S: request.filter.prefix };
    const result = await client.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: index.name,
        KeyConditionExpression: condition,
        ...(request.filter === undefined ? {} : { FilterExpression: 'begins_with(#f, :f)' }),
        ExpressionAttributeNames: {
          '#p': index.partitionKey,
          ...(request.sortPrefix === undefined ? {} : { '#s': index.sortKey }),
          ...(request.filter === undefined ? {} : { '#f': request.filter.attribute }),
        },
        ExpressionAttributeValues: values,
        ScanIndexForward: !request.descending,
        Limit: limit,
        ...(start === undefined ? {} : { ExclusiveStartKey: toWire(start) }),
      }),
    );
    return {
      entries: (result.Items ?? []).map((item) => ({
        fields: fromAttributes(item, NOT_FIELDS),
        key: keyOf(item, keyNames),
      })),
      next: result.LastEvaluatedKey && keyOf(result.LastEvaluatedKey, keyNames),
    };
  }

  return { readRecord, queryIndex };
}
