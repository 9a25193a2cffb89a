/**
 * Writes records so that every read stays whole and the file put later wins (SPEC 6, 6.1): a
 * record is one item (core/layout.ts), so one PutItem replaces it whole and a reader sees the old
 * record or the new one, never a mix; a deletion puts a tombstone. Every write of one import
 * carries that import's one version (core/import-version.ts) and goes through only over a
 * version no higher than its own: a later file's item stays as it is, whatever order the writes
 * land in, and a write sent again (a retry, a part or execution run again) lands the same.
 * The put returns the item it replaced: whether the record existed, and which files it named.
 *
 * A write whose answer was lost may have landed: a timeout or a dropped connection (this
 * writer's retries, or the SDK's own, which it sees as `$metadata.attempts` above 1), or an
 * attempt of the part killed before it recorded the write (`mayHaveLanded`). When such a write
 * then finds a later file's version, it says `maybe`, not `left`: its earlier send may have
 * replaced a record the later file has replaced since.
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

/** What one write knows of its own earlier sends. */
export interface WriteHistory {
  /** An earlier attempt of the part may have sent this write (it never recorded its answer). */
  mayHaveLanded?: boolean;
}

/**
 * What a write found:
 * - `written`: it replaced what was there; `existed` says whether a record was (a deletion of
 *   nothing is counted), `filesLeft` the file keys that record named and this one does not (a
 *   deletion: all of them), with their fields, for the operator to remove (docs/security.md);
 * - `left`: a later file's version was stored, and stays; this import never wrote the record;
 * - `maybe`: a later file's version was stored, and an earlier send of this write, whose answer
 *   was lost, may have landed before it: the record may have been written by this import (and
 *   replaced since); what it replaced then, and so the files that named, is not known;
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
  | { outcome: 'left' | 'maybe'; sameSecond: boolean }
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

/** Refusals that say the request was not applied: throttled, or over a limit. */
const REFUSED = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
]);

/** How many times the SDK sent the request (its own retries), as it says. */
const sends = (answer: unknown) =>
  (answer as { $metadata?: { attempts?: number } } | undefined)?.$metadata?.attempts ?? 1;

/**
 * Retries what DynamoDB throttles or fails to answer, with backoff and jitter. `mayHaveLanded`
 * is told of a send that may have landed without its answer reaching here: one that ended in an
 * error that is not a clear refusal (a timeout, a dropped connection, a DynamoDB-side failure),
 * or one the SDK sent more than once (its retries hide why: a timeout as much as a throttle).
 */
async function withRetries<T>(send: () => Promise<T>, mayHaveLanded: () => void): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      const answer = await send();
      if (sends(answer) > 1) mayHaveLanded();
      return answer;
    } catch (error) {
      const name = (error as { name?: string }).name ?? '';
      if (sends(error) > 1 || (isUnavailable(error) && !REFUSED.has(name))) mayHaveLanded();
      if (!isUnavailable(error) || attempt >= MAX_ATTEMPTS) throw error;
      await backoff(attempt);
    }
  }
}

/** Writes one record (or its deletion) whole, unless a later file's version is stored. */
export async function writeRecord(
  options: WriterOptions,
  write: Write,
  history: WriteHistory = {},
): Promise<Written> {
  const { client, tableName, version } = options;
  let mayHaveLanded = history.mayHaveLanded === true;
  const item =
    write.kind === 'put'
      ? itemOf(write.entity, write.record, version)
      : tombstoneOf(write.entity, write.id, version, tombstoneExpiry(version));
  let old: Item | undefined;
  try {
    const result = await withRetries(
      () =>
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
      () => (mayHaveLanded = true),
    );
    old = result.Attributes;
  } catch (error) {
    if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
    const stored = (error as { Item?: Record<string, { S?: string }> }).Item?.[VERSION]?.S ?? '';
    return { outcome: mayHaveLanded ? 'maybe' : 'left', sameSecond: sameSecond(stored, version) };
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
