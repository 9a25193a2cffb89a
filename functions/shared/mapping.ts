/** Maps a stored item collection to the API record of SPEC 3: files presigned, times shown in the display zone. */
import type { Entity } from './keys';
import { CorruptRecordError } from './errors';
import type { Presign } from './presigner';
import {
  customerCheck,
  timeCheck,
  transactionCheck,
  validate,
  type Customer,
  type Transaction,
} from './records';
import type { Check } from './schema';
import { recordOf, type Collection, type Item } from './table';
import type { TimeCodec } from './times';

export interface MappingDeps {
  presign: Presign;
  times: TimeCodec;
}

const storedTime = timeCheck();
const STORED: Record<Entity, Check> = {
  transaction: transactionCheck(storedTime),
  customer: customerCheck(storedTime),
};

/** A stored record that fails the SPEC's shape is a 500: the paths are logged, never the values. */
function stored<T>(entity: Entity, collection: Collection & { head: Item }): T {
  const checked = validate<T>(STORED[entity], recordOf(entity, collection), entity);
  if (checked.ok) return checked.value;
  const paths = checked.problems.map((p) => p.path).join(', ');
  throw new CorruptRecordError(`Stored ${entity} is corrupt at ${paths}`);
}

export async function toApiTransaction(
  collection: Collection & { head: Item },
  { presign, times }: MappingDeps,
): Promise<Transaction> {
  const record = stored<Transaction>('transaction', collection);
  const [signature, attachment] = await Promise.all([
    presign(record.signature),
    presign(record.attachment),
  ]);
  return { ...record, signature, attachment, created_at: times.display(record.created_at) };
}

export async function toApiCustomer(
  collection: Collection & { head: Item },
  { presign, times }: MappingDeps,
): Promise<Customer> {
  const record = stored<Customer>('customer', collection);
  const last = record.last_transaction_datetime;
  return {
    ...record,
    id_photo: await presign(record.id_photo),
    last_transaction_datetime: last === null ? null : times.display(last),
  };
}
