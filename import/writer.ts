/**
 * Writes records so that every read stays whole (SPEC 6.1, docs/architecture.md). Per record:
 * 1. the new version's children, under sort keys of that version that no reader looks at yet;
 * 2. the head flipped to the new version by a PutItem on condition that the stored head is
 *    older (`v < :v`), so that versions only grow and an older one never becomes head again;
 * 3. every child of a version older than this one deleted: no reader can want them any more,
 *    and this also removes what a killed import left.
 * A deletion is the same with a tombstone head and no children. A flip that loses to a newer
 * head (another import, or a clock behind) is tried again with a version after that head.
 */
import {
  BatchWriteCommand,
  PutCommand,
  QueryCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { EntityDescriptor } from '../core/entities';
import {
  DELETED,
  PARTITION_KEY,
  SORT_KEY,
  VERSION,
  childVersion,
  itemsOf,
  newVersion,
  partitionKey,
  tombstoneOf,
  type Item,
} from '../core/layout';
import { isUnavailable } from '../core/unavailable';

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

/** The files `old` (the head replaced) named that `write` no longer names. */
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
/** Flips lost to a newer head before the import gives up on a record. */
const MAX_FLIPS = 5;
const BATCH = 25;

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

/** Puts or deletes in batches of 25, in parallel, retrying what DynamoDB leaves unprocessed. */
async function batchWrite(
  client: DynamoDBDocumentClient,
  tableName: string,
  requests: Item[],
): Promise<void> {
  const batches: Item[][] = [];
  for (let i = 0; i < requests.length; i += BATCH) batches.push(requests.slice(i, i + BATCH));
  await Promise.all(
    batches.map(async (batch) => {
      let pending = batch;
      for (let attempt = 1; pending.length > 0; attempt += 1) {
        if (attempt > MAX_ATTEMPTS)
          throw new Error(
            `DynamoDB left ${pending.length} writes unprocessed after ${MAX_ATTEMPTS} attempts`,
          );
        if (attempt > 1) await backoff(attempt);
        const result = await withRetries(() =>
          client.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending as never } })),
        );
        pending = (result.UnprocessedItems?.[tableName] ?? []) as Item[];
      }
    }),
  );
}

interface Plan {
  write: Write;
  version: string;
  head: Item;
  children: Item[];
}

function plan(write: Write, version: string): Plan {
  if (write.kind === 'delete')
    return { write, version, head: tombstoneOf(write.entity, write.id, version), children: [] };
  return { write, version, ...itemsOf(write.entity, write.record, version) };
}

const puts = (items: Item[]) => items.map((Item) => ({ PutRequest: { Item } }));

/** Step 2: the head, if it is newer than the stored one; else the stored head's version. */
async function flip(
  client: DynamoDBDocumentClient,
  tableName: string,
  { head, version }: Plan,
): Promise<{ ok: true; old: Item | undefined } | { ok: false; stored: string }> {
  try {
    const result = await withRetries(() =>
      client.send(
        new PutCommand({
          TableName: tableName,
          Item: head,
          ConditionExpression: 'attribute_not_exists(#pk) OR attribute_not_exists(#v) OR #v < :v',
          ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#v': VERSION },
          ExpressionAttributeValues: { ':v': version },
          ReturnValues: 'ALL_OLD',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    );
    return { ok: true, old: result.Attributes };
  } catch (error) {
    if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
    const stored = (error as { Item?: Record<string, { S?: string }> }).Item?.[VERSION]?.S;
    return { ok: false, stored: stored ?? version };
  }
}

/** Step 3: deletes of every child of a version older than `version` (the one just made head). */
async function staleKeys(
  client: DynamoDBDocumentClient,
  tableName: string,
  entity: EntityDescriptor,
  id: bigint,
  version: string,
): Promise<Item[]> {
  const pk = partitionKey(entity, id);
  const deletes: Item[] = [];
  let startKey: Item | undefined;
  do {
    const page = await withRetries(() =>
      client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: '#pk = :pk',
          ProjectionExpression: '#sk',
          ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#sk': SORT_KEY },
          ExpressionAttributeValues: { ':pk': pk },
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        }),
      ),
    );
    for (const item of page.Items ?? []) {
      const sk = item[SORT_KEY] as string;
      const of = childVersion(entity, sk);
      if (of !== undefined && of < version)
        deletes.push({ DeleteRequest: { Key: { [PARTITION_KEY]: pk, [SORT_KEY]: sk } } });
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return deletes;
}

/**
 * Writes a group of records, each whole as readers see it. Steps 1 and 3 are batched across
 * the group; a record whose flip loses is written again alone with a later version.
 */
export async function writeGroup(options: WriterOptions, group: Write[]): Promise<Written[]> {
  const { client, tableName, now = Date.now } = options;
  let plans = group.map((write) => plan(write, newVersion(now())));
  const written: Written[] = new Array(group.length);
  const made: Plan[] = [];
  for (let round = 1; plans.length > 0; round += 1) {
    await batchWrite(client, tableName, puts(plans.flatMap((p) => p.children)));
    const results = await Promise.all(plans.map((p) => flip(client, tableName, p)));
    const lost: Plan[] = [];
    results.forEach((result, i) => {
      const p = plans[i]!;
      if (result.ok) {
        written[group.indexOf(p.write)] = {
          existed: result.old !== undefined && result.old[DELETED] !== true,
          filesLeft: filesLeft(p.write, result.old),
        };
        made.push(p);
      } else lost.push(plan(p.write, newVersion(now(), result.stored)));
    });
    if (lost.length > 0 && round >= MAX_FLIPS) {
      const { entity, id } = lost[0]!.write;
      throw new Error(
        `${entity.name} ${id} was replaced by another import ${MAX_FLIPS} times while this one wrote it; run the import again`,
      );
    }
    plans = lost;
  }
  const stale = await Promise.all(
    made.map((p) => staleKeys(client, tableName, p.write.entity, p.write.id, p.version)),
  );
  await batchWrite(client, tableName, stale.flat());
  return written;
}
