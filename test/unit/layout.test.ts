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

/**
 * Every attribute items in a stage may hold today. A write removes only what itemAttributesOf
 * lists, and a GET leaves out only PRIOR's it knows: an attribute dropped from either while
 * items still hold it stays on them, and each GET of them is then a 500 (an unknown field). So
 * one that goes from the schema must stay listed until every item has been written again; one
 * that comes is added here.
 */
const HELD: Record<Entity, string> = {
  transaction:
    'id receipt_no branch customer purpose type total_amount total_profit_amount signature ' +
    'attachment transaction_currencies created_by created_at',
  customer:
    'id first_name middle_name last_name email current_address permanent_address tin sss ' +
    'document_type id_no place_of_birth nationality contact_number id_photo date_of_birth ' +
    'assessment_score assessment_risk customer_risk_assessments last_transaction_datetime',
};
const HELD_BY_ALL =
  'receiptKey customerKey timeKey tinKey tinWhole sssKey idNoKey lastNameKey nameKey ' +
  'v deleted expiresAt was_v was_deleted was2_v was2_deleted';
const HELD_FILES: Record<Entity, string> = {
  transaction: 'was_signature was_attachment was2_signature was2_attachment',
  customer: 'was_id_photo was2_id_photo',
};

test.each(Object.keys(ENTITIES) as Entity[])(
  'a write still removes, and a GET still knows, every attribute a %s item may hold',
  (name) => {
    const entity = ENTITIES[name];
    const held = `${HELD[name]} ${HELD_BY_ALL} ${HELD_FILES[name]}`.split(' ');
    const known = new Set([...itemAttributesOf(entity), ...priorAttributesOf(entity)]);
    expect({ noLongerKnown: held.filter((a) => !known.has(a)) }).toEqual({ noLongerKnown: [] });
    expect({ notListedHere: [...known].filter((a) => !held.includes(a)) }).toEqual({
      notListedHere: [],
    });
  },
);
