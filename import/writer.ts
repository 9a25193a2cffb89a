/**
 * Writes records so that every read stays whole (SPEC 6.1): a record is one item (core/layout.ts),
 * so one PutItem replaces it whole, and a reader sees the old record or the new one, never a
 * mix. A deletion puts a tombstone. Each put goes through on condition that the stored item is
 * older (`v < :v`), so that versions only grow and an older import never brings back what a
 * newer one wrote; a put that loses to a newer item (another import, or a clock behind) is tried
 * again with a version after that item's. The put returns the item it replaced: whether the
 * record existed, and which files it named.
 */
import { PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { EntityDescriptor } from '../core/entities.ts';
import {
  DELETED,
  PARTITION_KEY,
  VERSION,
  itemOf,
  newVersion,
  tombstoneOf,
  type Item,
} from '../core/layout.ts';
import { isUnavailable } from '../core/unavailable.ts';

export type Write =
  | { kind: 'put'; entity: EntityDescriptor; id: bigint; record: Item }
  | { kind: 'delete'; entity: EntityDescriptor; id: bigint };

export interface WriterOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  /** The clock versions are made from (tests set one that is behind). */
  now?: () => number;
}

/**
 * What a write found: whether the record was there before (a deletion of nothing is counted), and
 * the file keys its previous version named that this one does not (a deletion: all of them), with
 * their fields: files the import leaves for the operator to remove (docs/security.md).
 */
export interface Written {
  existed: boolean;
  filesLeft: [field: string, key: string][];
}

/** The files `old` (the item replaced) named that `write` no longer names. */
function filesLeft(write: Write, old: Item | undefined): Written['filesLeft'] {
  if (old === undefined || old[DELETED] === true) return [];
  const kept = new Set(
    write.kind === 'put' ? write.entity.fileFields.map((field) => write.record[field]) : [],
  );
  return write.entity.fileFields.flatMap((field) => {
    const key = old[field];
    return typeof key === 'string' && !kept.has(key) ? [[field, key] as [string, string]] : [];
  });
}

const MAX_ATTEMPTS = 10;
/** Puts lost to a newer item before the import gives up on a record. */
const MAX_FLIPS = 5;

async function backoff(attempt: number): Promise<void> {
  const ms = Math.min(5000, 50 * 2 ** attempt) * (0.5 + Math.random() / 2);
  await new Promise((resolve) => setTimeout(resolve, ms));
}

/** Retries what DynamoDB throttles or fails to answer, with backoff and jitter. */
async function withRetries<T>(send: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await send();
    } catch (error) {
      if (!isUnavailable(error) || attempt >= MAX_ATTEMPTS) throw error;
      await backoff(attempt);
    }
  }
}

/** The item, if it is newer than the stored one; else the stored item's version. */
async function put(
  client: DynamoDBDocumentClient,
  tableName: string,
  item: Item,
): Promise<{ ok: true; old: Item | undefined } | { ok: false; stored: string }> {
  try {
    const result = await withRetries(() =>
      client.send(
        new PutCommand({
          TableName: tableName,
          Item: item,
          ConditionExpression: 'attribute_not_exists(#pk) OR attribute_not_exists(#v) OR #v < :v',
          ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#v': VERSION },
          ExpressionAttributeValues: { ':v': item[VERSION] },
          ReturnValues: 'ALL_OLD',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    );
    return { ok: true, old: result.Attributes };
  } catch (error) {
    if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
    const stored = (error as { Item?: Record<string, { S?: string }> }).Item?.[VERSION]?.S;
    return { ok: false, stored: stored ?? (item[VERSION] as string) };
  }
}

const itemFor = (write: Write, version: string): Item =>
  write.kind === 'put'
    ? itemOf(write.entity, write.record, version)
    : tombstoneOf(write.entity, write.id, version);

/** Writes one record (or its deletion) whole, as readers see it. */
export async function writeRecord(options: WriterOptions, write: Write): Promise<Written> {
  const { client, tableName, now = Date.now } = options;
  let version = newVersion(now());
  for (let round = 1; ; round += 1) {
    const result = await put(client, tableName, itemFor(write, version));
    if (result.ok)
      return {
        existed: result.old !== undefined && result.old[DELETED] !== true,
        filesLeft: filesLeft(write, result.old),
      };
    if (round >= MAX_FLIPS)
      throw new Error(
        `${write.entity.name} ${write.id} was replaced by another import ${MAX_FLIPS} times while this one wrote it; run the import again`,
      );
    version = newVersion(now(), result.stored);
  }
}
