/**
 * Writes records so that every read stays whole and the file put later wins (SPEC 6, 6.1): a
 * record is one item (core/layout.ts), so one PutItem replaces it whole and a reader sees the old
 * record or the new one, never a mix; a deletion puts a tombstone. Every write of one import
 * carries that import's one version (core/import-version.ts) and goes through only over a
 * version no higher than its own: a later file's item stays as it is, whatever order the writes
 * land in, and a write sent again (a retry, a part or execution run again) lands the same.
 * The put returns the item it replaced: whether the record existed, and which files it named.
 */
import { PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { EntityDescriptor } from '../core/entities.ts';
import { sameSecond, tombstoneExpiry } from '../core/import-version.ts';
import { DELETED, PARTITION_KEY, VERSION, itemOf, tombstoneOf, type Item } from '../core/layout.ts';
import { isUnavailable } from '../core/unavailable.ts';

export type Write =
  | { kind: 'put'; entity: EntityDescriptor; id: bigint; record: Item }
  | { kind: 'delete'; entity: EntityDescriptor; id: bigint };

export interface WriterOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  /** The import's version: the same for every write of it. */
  version: string;
}

/**
 * What a write found:
 * - `written`: it replaced what was there; `existed` says whether a record was (a deletion of
 *   nothing is counted), `filesLeft` the file keys that record named and this one does not (a
 *   deletion: all of them), with their fields, for the operator to remove (docs/security.md);
 * - `left`: a later file's version was stored, and stays;
 * - `again`: this import's own version was stored (a write sent again after its answer was lost,
 *   a part run again): done, but what it replaced the first time is not known.
 * `sameSecond`: the other version was put within the same second (ordered by S3's sequencer).
 */
export type Written =
  | {
      outcome: 'written';
      existed: boolean;
      filesLeft: [field: string, key: string][];
      sameSecond: boolean;
    }
  | { outcome: 'left'; sameSecond: boolean }
  | { outcome: 'again' };

/** The files `old` (the item replaced) named that `write` no longer names. */
function filesLeft(write: Write, old: Item | undefined): [string, string][] {
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

/** Writes one record (or its deletion) whole, unless a later file's version is stored. */
export async function writeRecord(options: WriterOptions, write: Write): Promise<Written> {
  const { client, tableName, version } = options;
  const item =
    write.kind === 'put'
      ? itemOf(write.entity, write.record, version)
      : tombstoneOf(write.entity, write.id, version, tombstoneExpiry(version));
  let old: Item | undefined;
  try {
    const result = await withRetries(() =>
      client.send(
        new PutCommand({
          TableName: tableName,
          Item: item,
          ConditionExpression: 'attribute_not_exists(#pk) OR #v <= :v',
          ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#v': VERSION },
          ExpressionAttributeValues: { ':v': version },
          ReturnValues: 'ALL_OLD',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    );
    old = result.Attributes;
  } catch (error) {
    if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
    const stored = (error as { Item?: Record<string, { S?: string }> }).Item?.[VERSION]?.S ?? '';
    return { outcome: 'left', sameSecond: sameSecond(stored, version) };
  }
  const oldVersion = old?.[VERSION];
  if (oldVersion === version) return { outcome: 'again' };
  return {
    outcome: 'written',
    existed: old !== undefined && old[DELETED] !== true,
    filesLeft: filesLeft(write, old),
    sameSecond: typeof oldVersion === 'string' && sameSecond(oldVersion, version),
  };
}
