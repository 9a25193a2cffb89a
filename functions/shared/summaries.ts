/**
 * A lookup's summaries (SPEC 10) from what an index holds: checked as the GET's records are (a
 * corrupt entry is a 500, its paths logged, never its values), times shown in the display zone,
 * and only the summary's fields, in its order.
 */
import type { Entity } from '../../core/entities.ts';
import type { Item } from '../../core/layout.ts';
import {
  CorruptRecordError,
  customerSummaryCheck,
  timeCheck,
  transactionSummaryCheck,
} from '../../core/records.ts';
import { validate } from '../../core/schema.ts';
import type { TimeCodec } from '../../core/times.ts';

const stored = timeCheck();
const CHECKS = {
  transaction: transactionSummaryCheck(stored),
  customer: customerSummaryCheck(stored),
};

type Summary = Record<string, unknown>;

const shown = (times: TimeCodec, value: unknown) =>
  value === null ? null : times.display(value as string);

export function toSummary(entity: Entity, fields: Item, times: TimeCodec): Summary {
  const result = validate<Summary>(CHECKS[entity], fields, `${entity} summary`);
  if (!result.ok) {
    const paths = result.problems.map((p) => p.path).join(', ');
    throw new CorruptRecordError(`Indexed ${entity} is corrupt at ${paths}`);
  }
  const s = result.value;
  if (entity === 'customer')
    return { ...s, last_transaction_datetime: shown(times, s.last_transaction_datetime) };
  const branch = s.branch as { id: bigint; name: string };
  const customer = s.customer as { id: bigint; first_name: string };
  return {
    id: s.id,
    receipt_no: s.receipt_no,
    created_at: shown(times, s.created_at),
    branch: { id: branch.id, name: branch.name },
    customer: { id: customer.id, first_name: customer.first_name },
    type: s.type,
    total_amount: s.total_amount,
  };
}
