/**
 * The functions' read of the table (layout: core/layout.ts): one GetItem of a record's item,
 * which an import wrote whole (SPEC 6.1).
 */
import { GetItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { EntityDescriptor } from '../../core/entities.ts';
import {
  DELETED,
  PARTITION_KEY,
  SORT_KEY,
  VERSION,
  partitionKey,
  type Item,
} from '../../core/layout.ts';
import { fromAttributes } from '../sdk/attribute-values.ts';
import { CorruptRecordError } from './errors.ts';

/** An item's attributes that are not fields of the record. */
const NOT_FIELDS = new Set([PARTITION_KEY, SORT_KEY, VERSION]);

export interface RecordStore {
  /** The record as stored (files as keys, times in UTC), its children nested; undefined when there is none. */
  readRecord(entity: EntityDescriptor, id: bigint): Promise<Item | undefined>;
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

  return { readRecord };
}
