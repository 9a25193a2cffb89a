/**
 * The functions' read of the table (layout: core/layout.ts): one Query of a record's item
 * collection, turned into the record as one import left it (SPEC 6.1).
 */
import {
  QueryCommand,
  type AttributeValue,
  type DynamoDBClient,
  type QueryCommandInput,
} from '@aws-sdk/client-dynamodb';
import type { EntityDescriptor } from '../../core/entities';
import {
  CHILD_COUNT,
  DELETED,
  PARTITION_KEY,
  SORT_KEY,
  VERSION,
  childVersion,
  partitionKey,
  type Item,
} from '../../core/layout';
import { isUnavailable } from '../../core/unavailable';
import { fromAttributes } from '../sdk/attribute-values';
import { CorruptRecordError, ServiceUnavailableError } from './errors';

type StoredItem = Record<string, AttributeValue>;

/**
 * One Query's view of a record's items: the head, and the children grouped by version, still in
 * DynamoDB's wire form: only the head's version's children are ever converted (see readRecord).
 */
interface Snapshot {
  head: Item | undefined;
  children: Map<string, StoredItem[]>;
}

/** An item's key attributes: not fields of the record. */
const KEYS = new Set([PARTITION_KEY, SORT_KEY]);

/** Reads in all for one GET at most: one in the common case, then consistent ones (see readRecord). */
export const MAX_READS = 4;

export interface RecordStore {
  /** The record as stored (files as keys, times in UTC), its children nested; undefined when there is none. */
  readRecord(entity: EntityDescriptor, id: bigint): Promise<Item | undefined>;
}

export function createStore(client: DynamoDBClient, tableName: string): RecordStore {
  async function query(entity: EntityDescriptor, id: bigint, consistent: boolean) {
    const result: Snapshot = { head: undefined, children: new Map() };
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
        if (sk === entity.keys.head) {
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

  /**
   * The head and the children of the head's version, in sort-key (= id) order, keys and version
   * attributes removed; nothing for a record that does not exist or was deleted. A Query is not
   * a snapshot: it may see a head whose children are still being written, or whose children an
   * import has just deleted. Then fewer children than the head counts are seen, and the record
   * is read again with ConsistentRead. A torn view needs a head flip between the reads of the
   * head and of its children, and a version becomes head once and stops being head once: so
   * two consistent reads that see the same version incomplete mean the stored record is
   * corrupt (500); a record replaced again and again under the reader after MAX_READS reads is
   * a 503 (try again).
   */
  async function readRecord(entity: EntityDescriptor, id: bigint): Promise<Item | undefined> {
    let incomplete: string | undefined;
    for (let read = 1; ; read += 1) {
      let snapshot: Snapshot;
      try {
        snapshot = await query(entity, id, read > 1);
      } catch (error) {
        if (isUnavailable(error)) throw new ServiceUnavailableError();
        throw error;
      }
      const { head, children } = snapshot;
      if (head === undefined || head[DELETED] === true) return undefined;
      const { [VERSION]: version, [CHILD_COUNT]: count, ...fields } = head;
      const mine = typeof version === 'string' ? (children.get(version) ?? []) : [];
      if (typeof version !== 'string' || typeof count !== 'bigint' || mine.length > count)
        throw new CorruptRecordError(`Stored ${entity.name} has a bad version or child count`);
      if (BigInt(mine.length) === count)
        return { ...fields, [entity.children]: mine.map((item) => fromAttributes(item, KEYS)) };
      if (read > 1 && incomplete === version)
        throw new CorruptRecordError(`Stored ${entity.name} lacks children of its version`);
      if (read >= MAX_READS) throw new ServiceUnavailableError();
      incomplete = read > 1 ? version : undefined;
    }
  }

  return { readRecord };
}
