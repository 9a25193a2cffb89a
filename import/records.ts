/**
 * One import line (SPEC 6): `{"transaction": {...}}` or `{"customer": {...}}`, checked and
 * turned into stored form, or `{"delete": {"transaction": <id>}}` (or `customer`).
 */
import { ENTITIES, type Entity, type EntityDescriptor } from '../core/entities.ts';
import { MAX_ID } from '../core/ids.ts';
import { parseExactJson } from '../core/json.ts';
import { VERSION_FOR_SIZE } from '../core/import-version.ts';
import { MAX_ITEM_BYTES, itemOf, itemSize, priorBytes, type Item } from '../core/layout.ts';
import { timeCheck } from '../core/records.ts';
import { integer, validate, type Problem } from '../core/schema.ts';
import type { TimeCodec } from '../core/times.ts';

export type ParsedLine =
  | { ok: true; kind: 'put'; entity: EntityDescriptor; id: bigint; record: Item }
  | { ok: true; kind: 'delete'; entity: EntityDescriptor; id: bigint }
  | { ok: false; problems: Problem[] };

const WHOLE_LINE = '$';
const recordId = integer(1n, MAX_ID);
const isEntity = (key: string | undefined): key is Entity =>
  key !== undefined && Object.hasOwn(ENTITIES, key);
const keysOf = (value: unknown): string[] =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.keys(value) : [];

/** `{"transaction": <id>}` or `{"customer": <id>}`, the value of a delete line. */
function parseDelete(value: unknown): ParsedLine {
  const [entity, ...more] = keysOf(value);
  if (!isEntity(entity) || more.length > 0)
    return {
      ok: false,
      problems: [
        {
          path: 'delete',
          reason: 'must be an object with one key, "transaction" or "customer", and the id',
        },
      ],
    };
  const problems: Problem[] = [];
  const id = recordId((value as Record<string, unknown>)[entity], `delete.${entity}`, problems);
  return problems.length > 0
    ? { ok: false, problems }
    : { ok: true, kind: 'delete', entity: ENTITIES[entity], id: id as bigint };
}

export type LineParser = (text: string) => ParsedLine;

export function createLineParser(times: TimeCodec): LineParser {
  const wallTime = timeCheck(times);
  const checks = new Map(Object.values(ENTITIES).map((entity) => [entity, entity.check(wallTime)]));
  // The most each entity's item keeps of the items before it: the same for every line.
  const priorRoom = new Map(
    Object.values(ENTITIES).map((entity) => [entity, priorBytes(entity, VERSION_FOR_SIZE)]),
  );

  /** Wall times in the display zone become UTC instants, as the table keeps them. */
  const toStored = (entity: EntityDescriptor, record: Item): Item => {
    const stored = { ...record };
    for (const field of entity.timeFields) {
      const wall = record[field] as string | null;
      stored[field] = wall === null ? null : times.store(wall);
    }
    return stored;
  };

  return (text) => {
    let value: unknown;
    try {
      value = parseExactJson(text);
    } catch {
      // The parser's message quotes the input, which may hold personal data: say only what is wrong.
      return { ok: false, problems: [{ path: WHOLE_LINE, reason: 'is not valid JSON' }] };
    }
    const [entity, ...more] = keysOf(value);
    if (entity === 'delete' && more.length === 0)
      return parseDelete((value as Record<string, unknown>).delete);
    if (!isEntity(entity) || more.length > 0) {
      return {
        ok: false,
        problems: [
          {
            path: WHOLE_LINE,
            reason: 'must be an object with one key, "transaction", "customer" or "delete"',
          },
        ],
      };
    }
    const descriptor = ENTITIES[entity];
    const checked = validate<Item>(
      checks.get(descriptor)!,
      (value as Record<string, unknown>)[entity],
      entity,
    );
    if (!checked.ok) return checked;
    const record = toStored(descriptor, checked.value);
    // SPEC 6: stored whole as one item, or refused: never cut. Counted with the most that the
    // item keeps of the items before it.
    const size =
      itemSize(itemOf(descriptor, record, VERSION_FOR_SIZE)) + priorRoom.get(descriptor)!;
    if (size > MAX_ITEM_BYTES)
      return {
        ok: false,
        problems: [
          {
            path: entity,
            reason: `stored as ${Math.ceil(size / 1024)} KB with room for the files of the records it replaces; at most ${MAX_ITEM_BYTES / 1024} KB (DynamoDB's item limit)`,
          },
        ],
      };
    return { ok: true, kind: 'put', entity: descriptor, id: checked.value.id as bigint, record };
  };
}
