/** Maps a stored record to the API record of SPEC 3: files presigned, times shown in the display zone. */
import type { EntityDescriptor } from '../../core/entities.ts';
import type { Item } from '../../core/layout.ts';
import { CorruptRecordError, timeCheck } from '../../core/records.ts';
import { validate, type Check } from '../../core/schema.ts';
import type { TimeCodec } from '../../core/times.ts';
import type { Presign } from './presigner.ts';

export interface MappingDeps {
  presign: Presign;
  times: TimeCodec;
}

const storedTime = timeCheck();
/** Built once per entity, not per GET: every GET checks its stored record. */
const storedChecks = new WeakMap<EntityDescriptor, Check>();

function storedCheck(entity: EntityDescriptor): Check {
  let check = storedChecks.get(entity);
  if (!check) storedChecks.set(entity, (check = entity.check(storedTime)));
  return check;
}

/** A stored record that fails the SPEC's shape is a 500: the paths are logged, never the values. */
function checked(entity: EntityDescriptor, stored: Item): Item {
  const result = validate<Item>(storedCheck(entity), stored, entity.name);
  if (result.ok) return result.value;
  const paths = result.problems.map((p) => p.path).join(', ');
  throw new CorruptRecordError(`Stored ${entity.name} is corrupt at ${paths}`);
}

export async function toApiRecord<R>(
  entity: EntityDescriptor<R>,
  stored: Item,
  { presign, times }: MappingDeps,
): Promise<R> {
  const record = checked(entity, stored);
  for (const field of entity.timeFields) {
    const value = record[field] as string | null;
    if (value !== null) record[field] = times.display(value);
  }
  const urls = await Promise.all(
    entity.fileFields.map((field) => presign(record[field] as string | null)),
  );
  entity.fileFields.forEach((field, i) => (record[field] = urls[i]));
  return record as R;
}
