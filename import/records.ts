/**
 * One import line (SPEC 6): `{"transaction": {...}}` or `{"customer": {...}}`, checked and
 * turned into stored form, or `{"delete": {"transaction": <id>}}` (or `customer`).
 */
import type { Entity } from '../functions/shared/keys';
import { parseExactJson } from '../functions/shared/json';
import { MAX_ID } from '../functions/shared/ids';
import { customerCheck, timeCheck, transactionCheck, validate } from '../functions/shared/records';
import { integer, type Check, type Problem } from '../functions/shared/schema';
import type { Item } from '../functions/shared/table';
import type { TimeCodec } from '../functions/shared/times';

export type ParsedLine =
  | { ok: true; kind: 'put'; entity: Entity; id: bigint; record: Item }
  | { ok: true; kind: 'delete'; entity: Entity; id: bigint }
  | { ok: false; problems: Problem[] };

const WHOLE_LINE = '$';
const recordId = integer(1n, MAX_ID);
const isEntity = (key: string | undefined): key is Entity =>
  key === 'transaction' || key === 'customer';
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
    : { ok: true, kind: 'delete', entity, id: id as bigint };
}

export function createLineParser(times: TimeCodec): (text: string) => ParsedLine {
  const wallTime = timeCheck(times);
  const checks: Record<Entity, Check> = {
    transaction: transactionCheck(wallTime),
    customer: customerCheck(wallTime),
  };

  /** Wall times in the display zone become UTC instants, as the table keeps them. */
  const toStored = (entity: Entity, record: Item): Item => {
    if (entity === 'transaction')
      return { ...record, created_at: times.store(record.created_at as string) };
    const last = record.last_transaction_datetime as string | null;
    return { ...record, last_transaction_datetime: last === null ? null : times.store(last) };
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
    const checked = validate<Item>(
      checks[entity],
      (value as Record<string, unknown>)[entity],
      entity,
    );
    if (!checked.ok) return checked;
    return {
      ok: true,
      kind: 'put',
      entity,
      id: checked.value.id as bigint,
      record: toStored(entity, checked.value),
    };
  };
}
