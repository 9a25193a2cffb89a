/**
 * The attributes a write sets or removes (core/layout.ts itemAttributesOf): every attribute a
 * record's item or its tombstone holds is one of them, so that each write replaces the item
 * whole (import/writer.ts refuses any other), and none is one PRIOR keeps.
 */
import { ENTITIES, type Entity } from '../../core/entities.ts';
import { startVersion, tombstoneExpiry } from '../../core/import-version.ts';
import {
  PARTITION_KEY,
  SORT_KEY,
  itemAttributesOf,
  itemOf,
  priorAttributesOf,
  tombstoneOf,
} from '../../core/layout.ts';
import { createTimeCodec } from '../../core/times.ts';
import { createLineParser } from '../../import/records.ts';
import { customer, line, transaction } from '../fixtures.ts';

const parse = createLineParser(createTimeCodec('UTC'));
const version = startVersion();

/** Records with every field set, so that their items carry every index key. */
const full: Record<Entity, Record<string, unknown>> = {
  transaction: transaction({ id: 1, attachment: 'attachments/a.pdf' }),
  customer: customer({ id: 1, sss: '12-3456789-0', id_photo: 'id-photos/p.jpg' }),
};

test.each(Object.keys(ENTITIES) as Entity[])(
  "every attribute of a %s's item and tombstone is one a write sets or removes",
  (name) => {
    const entity = ENTITIES[name];
    const parsed = parse(line(name, full[name]));
    if (!parsed.ok || parsed.kind !== 'put') throw new Error('fixture is invalid');
    const listed = new Set([PARTITION_KEY, SORT_KEY, ...itemAttributesOf(entity)]);
    const item = itemOf(entity, parsed.record, version);
    const tombstone = tombstoneOf(entity, 1n, version, tombstoneExpiry(version));
    expect(Object.keys(item).filter((a) => !listed.has(a))).toEqual([]);
    expect(Object.keys(tombstone).filter((a) => !listed.has(a))).toEqual([]);
    expect(priorAttributesOf(entity).filter((a) => listed.has(a))).toEqual([]);
  },
);
