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
  priorAttributesOf,
  type Item,
} from '../../core/layout.ts';
import { ENTITIES } from '../../core/entities.ts';
import { INDEX_ATTRIBUTES, idOfSortKey, type IndexLayout } from '../../core/lookups.ts';
import { fromAttributes } from '../sdk/attribute-values.ts';
import { CorruptRecordError } from '../../core/records.ts';
import type { LookupRequest } from './lookup-requests.ts';

/** An item's attributes that are not fields of the record. */
const NOT_FIELDS = new Set<string>([
  PARTITION_KEY,
  SORT_KEY,
  VERSION,
  ...Object.values(INDEX_ATTRIBUTES),
  ...Object.values(ENTITIES).flatMap(priorAttributesOf),
]);

/** One summary as the index holds it, and its index sort key: a page ending with it goes on from there. */
export interface IndexEntry {
  readonly fields: Item;
  readonly sortKey: string;
}

export interface IndexPage {
  readonly entries: IndexEntry[];
  /** The sort key the next page starts after; undefined when the index has no more. */
  readonly next: string | undefined;
}

export interface RecordStore {
  /** The record as stored (files as keys, times in UTC), its children nested; undefined when there is none. */
  readRecord(entity: EntityDescriptor, id: bigint): Promise<Item | undefined>;
  /**
   * One page of a lookup's index (SPEC 10): one Query, at most `limit` entries, after the entry
   * with the sort key `after` when given.
   */
  queryIndex(request: LookupRequest, limit: number, after?: string): Promise<IndexPage>;
}

/** An index entry's sort key (every key attribute of the table and its indexes is a string). */
function sortKeyOf(item: Record<string, AttributeValue>, index: IndexLayout): string {
  const value = item[index.sortKey]?.S;
  if (value === undefined) throw new CorruptRecordError(`Index entry without its ${index.sortKey}`);
  return value;
}

/**
 * The whole key DynamoDB needs to go on after an entry, from its sort key: the sort key ends with
 * the record's id, which gives the table's key, and the partition is the lookup's own.
 */
function startKeyOf(request: LookupRequest, after: string): Record<string, AttributeValue> {
  const { index } = request;
  const { keys } = ENTITIES[index.entity];
  return {
    [PARTITION_KEY]: { S: `${keys.partition}${idOfSortKey(after)}` },
    [SORT_KEY]: { S: keys.sort },
    [index.partitionKey]: { S: request.partition },
    [index.sortKey]: { S: after },
  };
}

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
    after?: string,
  ): Promise<IndexPage> {
    const { index } = request;
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
        ...(after === undefined ? {} : { ExclusiveStartKey: startKeyOf(request, after) }),
      }),
    );
    return {
      entries: (result.Items ?? []).map((item) => ({
        fields: fromAttributes(item, NOT_FIELDS),
        sortKey: sortKeyOf(item, index),
      })),
      next: result.LastEvaluatedKey && sortKeyOf(result.LastEvaluatedKey, index),
    };
  }

  return { readRecord, queryIndex };
}
