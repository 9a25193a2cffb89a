/**
 * One descriptor per entity: everything about how a transaction or a customer is stored and
 * shown. The table layout (./layout), the API mapping (functions/shared/mapping.ts) and the
 * import's conversion (import/records.ts) all loop over these, so adding a field to a record
 * means editing its check in ./records and, for a time or a file, one list here.
 */
import { FILE_PREFIX, type FileField } from './file-keys.ts';
import { CUSTOMER_READERS_GROUP } from './groups.ts';
import { customerCheck, transactionCheck, type Customer, type Transaction } from './records.ts';
import type { Check, ObjectCheck } from './schema.ts';

export type Entity = 'transaction' | 'customer';

/** `R` is the record type this entity's check gives; only the type checker uses it. */
export interface EntityDescriptor<R = unknown> {
  readonly name: Entity;
  /** How messages name it: `Transaction not found`. */
  readonly label: string;
  /** The API's path parameter that holds the id. */
  readonly pathParameter: string;
  /** Its item's key (./layout): the partition key's prefix, the sort key. */
  readonly keys: { readonly partition: string; readonly sort: string };
  /** The array field of its children, stored in the record's item in ascending id order. */
  readonly children: string;
  /** The record's shape, given how its time fields are written (wall time or stored UTC). */
  readonly check: (time: Check) => ObjectCheck;
  /** Instants: stored in UTC, shown and imported as wall time in the display zone (SPEC 3.5). */
  readonly timeFields: readonly string[];
  /** S3 object keys when stored and imported, presigned URLs in the API (SPEC 3.4). */
  readonly fileFields: readonly FileField[];
  /** The Cognito group a reader must be in, if any (SPEC 1). */
  readonly readGroup?: string;
  /** Never set: carries `R` for the type checker. */
  readonly record?: R;
}

type Field<R> = keyof R & string;

/** A descriptor whose field names the type checker holds to the record type `R`. */
function describe<R>(
  descriptor: EntityDescriptor<R> & {
    children: Field<R>;
    timeFields: readonly Field<R>[];
    fileFields: readonly (Field<R> & FileField)[];
  },
): EntityDescriptor<R> {
  return descriptor;
}

export const TRANSACTION = describe<Transaction>({
  name: 'transaction',
  label: 'Transaction',
  pathParameter: 'transaction_id',
  keys: { partition: 'TXN#', sort: 'TXN' },
  children: 'transaction_currencies',
  check: transactionCheck,
  timeFields: ['created_at'],
  fileFields: ['signature', 'attachment'],
});

export const CUSTOMER = describe<Customer>({
  name: 'customer',
  label: 'Customer',
  pathParameter: 'customer_id',
  keys: { partition: 'CUS#', sort: 'CUS' },
  children: 'customer_risk_assessments',
  check: customerCheck,
  timeFields: ['last_transaction_datetime'],
  fileFields: ['id_photo'],
  readGroup: CUSTOMER_READERS_GROUP,
});

export const ENTITIES: Readonly<Record<Entity, EntityDescriptor>> = {
  transaction: TRANSACTION,
  customer: CUSTOMER,
};

/** The key prefixes of an entity's files: all that its route's function may read (SPEC 6). */
export function filePrefixesOf(entity: EntityDescriptor): string[] {
  return entity.fileFields.map((field) => FILE_PREFIX[field]);
}
