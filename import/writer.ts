/**
 * Writes records so that every read stays whole and the file put later wins (SPEC 6, 6.1): a
 * record is one item (core/layout.ts), so one UpdateItem that sets every attribute and removes
 * the rest replaces it whole, and a reader sees the old record or the new one, never a mix; a
 * deletion writes a tombstone. Every write of one import carries that import's one version
 * (core/import-version.ts) and goes through only over a lower version: a later file's item stays
 * as it is, whatever order the writes land in, and a write sent again (a retry, a part or
 * execution run again) finds its own. The write returns the item it replaced: whether the record
 * existed, and which files it named.
 *
 * A write whose answer was lost may have landed: a timeout or a dropped connection (this
 * writer's retries, or the SDK's own, which it sees as `$metadata.attempts` above 1), or an
 * attempt of the part killed before it recorded the write (`mayHaveLanded`). Its send again then
 * finds its own version, or a later file's; either way the item found keeps what the two items
 * before it were (core/layout.ts PRIOR), which tells whether its first send landed and what that
 * replaced, unless two later files' writes have landed since (`maybe`).
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { EntityDescriptor } from '../core/entities.ts';
import { sameSecond, tombstoneExpiry } from '../core/import-version.ts';
import {
  DELETED,
  PARTITION_KEY,
  SORT_KEY,
  VERSION,
  itemAttributesOf,
  itemOf,
  priorAttribute,
  priorAttributesOf,
  priorSources,
  tombstoneOf,
  type Item,
  type PriorLevel,
} from '../core/layout.ts';
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
 * - `written`: it replaced what was there (its own send did, maybe one whose answer was lost);
 *   `existed` says whether a record was (a deletion of nothing is counted), `filesLeft` the
 *   file keys that record named and this one does not (a deletion: all of them), with their
 *   fields, for the operator to remove (docs/security.md);
 * - `left`: a later file's version was stored, and stays; this import never wrote the record;
 * - `maybe`: a later file's version was stored, and an earlier send of this write, whose answer
 *   was lost, may have landed before it: the item found no longer tells (two later files' writes
 *   landed since, or it was written before items kept PRIOR's), nor what was replaced then;
 * - `again`: this import's own version was stored by an item that keeps no PRIOR's: done, but
 *   what it replaced is not known.
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

/** The placeholders of an entity's writes, one per attribute an item of it may hold. */
interface Shape {
  names: Readonly<Record<string, string>>;
  name: (attribute: string) => string;
  prior: string;
  removable: readonly string[];
}
const shapes = new Map<EntityDescriptor, Shape>();

function shapeOf(entity: EntityDescriptor): Shape {
  let shape = shapes.get(entity);
  if (shape) return shape;
  const removable = itemAttributesOf(entity);
  const attributes = [PARTITION_KEY, ...removable, ...priorAttributesOf(entity)];
  const placeholders = new Map(attributes.map((attribute, i) => [attribute, `#${i}`]));
  const name = (attribute: string) => {
    const placeholder = placeholders.get(attribute);
    // Every name a request gives must be used: an attribute no write removes would leave one.
    if (placeholder === undefined)
      throw new Error(`${attribute} is not an attribute core/layout.ts itemAttributesOf lists`);
    return placeholder;
  };
  // An UpdateItem's operands are the item's before it: each level moves down one. An item
  // replaced that keeps no PRIOR's (written before items kept them) leaves `was2_` unknown
  // (false), not none: `was2_` is read only where the item replaced existed.
  const prior = priorSources(entity)
    .flatMap((source) => [
      `${name(priorAttribute(1, source))} = if_not_exists(${name(priorAttribute(0, source))}, :unknown)`,
      `${name(priorAttribute(0, source))} = if_not_exists(${name(source)}, :none)`,
    ])
    .join(', ');
  // Shared by every write of the entity, as sent: frozen, so that nothing may change it.
  const names = Object.freeze(
    Object.fromEntries([...placeholders].map(([attribute, p]) => [p, attribute])),
  );
  shape = { names, name, prior, removable };
  shapes.set(entity, shape);
  return shape;
}

/**
 * The UpdateItem that replaces a record's item whole with `item`, over a lower version only:
 * every attribute of `item` set, every other an item of the entity may hold removed, PRIOR's
 * moved down a level.
 */
function replaceCommand(
  tableName: string,
  entity: EntityDescriptor,
  item: Item,
  version: string,
): UpdateCommand {
  const { names, name, prior, removable } = shapeOf(entity);
  const values: Record<string, unknown> = { ':v': version, ':none': null, ':unknown': false };
  const set = [prior];
  for (const [attribute, value] of Object.entries(item)) {
    if (attribute === PARTITION_KEY || attribute === SORT_KEY) continue;
    const placeholder = attribute === VERSION ? ':v' : `:${name(attribute).slice(1)}`;
    values[placeholder] = value;
    set.push(`${name(attribute)} = ${placeholder}`);
  }
  const remove = removable.filter((attribute) => !Object.hasOwn(item, attribute)).map(name);
  return new UpdateCommand({
    TableName: tableName,
    Key: { [PARTITION_KEY]: item[PARTITION_KEY], [SORT_KEY]: item[SORT_KEY] },
    UpdateExpression: `SET ${set.join(', ')}${remove.length > 0 ? ` REMOVE ${remove.join(', ')}` : ''}`,
    ConditionExpression: `attribute_not_exists(${name(PARTITION_KEY)}) OR ${name(VERSION)} < :v`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    ReturnValues: 'ALL_OLD',
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  });
}

/** An attribute of the item a refused write found (left marshalled by the SDK). */
const plain = (value: AttributeValue | undefined): unknown =>
  value === undefined ? undefined : value.NULL ? null : (value.S ?? value.BOOL);

/**
 * The item an item replaced (level 0), or the one that item replaced (1), as PRIOR kept it:
 * `null` for none; undefined when not known (PRIOR's not kept).
 */
function priorItem(
  entity: EntityDescriptor,
  stored: (attribute: string) => unknown,
  level: PriorLevel,
): Item | null | undefined {
  const version = stored(priorAttribute(level, VERSION));
  if (typeof version !== 'string') return version === null ? null : undefined;
  return Object.fromEntries(
    priorSources(entity).map((source) => [source, stored(priorAttribute(level, source))]),
  );
}

/** The outcome of a write that replaced `old` (undefined: nothing). */
function replaced(write: Write, old: Item | undefined, version: string): Written {
  const oldVersion = old?.[VERSION];
  return {
    outcome: 'written',
    existed: old !== undefined && old[DELETED] !== true,
    filesLeft: filesLeft(write, old),
    sameSecond: typeof oldVersion === 'string' && sameSecond(oldVersion, version),
  };
}

/**
 * What a refused write learns from the item it found: its own version (an earlier send
 * landed: what that replaced is kept), or a later one. Had an earlier send landed, the versions
 * from it to the one found would rise: none or a lower one in PRIOR's says it never landed; its
 * own at level 0, that it landed and what it replaced (level 1); else it is not known.
 */
function refused(
  write: Write,
  found: Record<string, AttributeValue>,
  version: string,
  mayHaveLanded: boolean,
): Written {
  const stored = (attribute: string) => plain(found[attribute]);
  const storedVersion = String(stored(VERSION) ?? '');
  if (storedVersion === version) {
    const before = priorItem(write.entity, stored, 0);
    return before === undefined
      ? { outcome: 'again' }
      : replaced(write, before ?? undefined, version);
  }
  const left: Written = { outcome: 'left', sameSecond: sameSecond(storedVersion, version) };
  const never = (v: unknown) => v === null || (typeof v === 'string' && v < version);
  const before = stored(priorAttribute(0, VERSION));
  if (before === version) {
    const old = priorItem(write.entity, stored, 1);
    if (old !== undefined) return replaced(write, old ?? undefined, version);
  } else if (
    // A send answered every time never landed, whatever PRIOR's say.
    !mayHaveLanded ||
    never(before) ||
    (typeof before === 'string' && never(stored(priorAttribute(1, VERSION))))
  )
    return left;
  return { outcome: 'maybe', sameSecond: left.sameSecond };
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
  try {
    const result = await withRetries(
      () => client.send(replaceCommand(tableName, write.entity, item, version)),
      () => (mayHaveLanded = true),
    );
    return replaced(write, result.Attributes, version);
  } catch (error) {
    if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
    const found = (error as { Item?: Record<string, AttributeValue> }).Item ?? {};
    return refused(write, found, version, mayHaveLanded);
  }
}
