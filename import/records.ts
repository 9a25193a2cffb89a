/** One import line (SPEC 6): `{"transaction": {...}}` or `{"customer": {...}}`, checked and turned into stored form. */
import type { Entity } from '../functions/shared/keys';
import { parseExactJson } from '../functions/shared/json';
import { customerCheck, timeCheck, transactionCheck, validate } from '../functions/shared/records';
import type { Check, Problem } from '../functions/shared/schema';
import type { Item } from '../functions/shared/table';
import type { TimeCodec } from '../functions/shared/times';

export type ParsedLine =
  { ok: true; entity: Entity; id: bigint; record: Item } | { ok: false; problems: Problem[] };

const WHOLE_LINE = '$';

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
    const keys =
      typeof value === 'object' && value !== null && !Array.isArray(value)
        ? Object.keys(value)
        : [];
    const entity = keys[0];
    if (keys.length !== 1 || (entity !== 'transaction' && entity !== 'customer')) {
      return {
        ok: false,
        problems: [
          {
            path: WHOLE_LINE,
            reason: 'must be an object with one key, "transaction" or "customer"',
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
      entity,
      id: checked.value.id as bigint,
      record: toStored(entity, checked.value),
    };
  };
}
