/**
 * SPEC 6.1 against DynamoDB Local through the real handlers: readers never see a record torn
 * between two imports, while records are re-imported both ways and deleted, nor when two imports
 * of the same records race (one wins whole); and the file put later wins, whatever order the
 * writes land in.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { CUSTOMER } from '../../core/entities.ts';
import { importVersion, tombstoneExpiry } from '../../core/import-version.ts';
import { priorAttributesOf } from '../../core/layout.ts';
import { customer, line } from '../fixtures.ts';
import { startTestTable } from '../support/dynamodb.ts';
import { startReaders, type Entity } from '../support/readers.ts';
import {
  customerLine,
  range,
  targetsOf,
  transactionLine,
  versionLines,
  versionOf,
  type Version,
} from '../support/versions.ts';

let table: Awaited<ReturnType<typeof startTestTable>>;
let readers: Awaited<ReturnType<typeof startReaders>>;

beforeAll(async () => {
  table = await startTestTable();
  readers = await startReaders(table.endpoint, table.tableName);
}, 90_000);
afterAll(async () => table?.stop());

const get = (entity: Entity, id: number) => readers.get(entity, id);

test('readers never see a torn record while records are re-imported both ways and deleted', async () => {
  // The deleted set is written as A, then deleted, and so on.
  const set = { txns: range(1001, 24), custs: range(1001, 8), deleted: range(2001, 8) };
  const file = (v: Version) => versionLines(set, v);
  await table.importLines(file('A'));

  const targets = targetsOf(set);
  // A 503 (DynamoDB Local too slow on a loaded machine) is asked again by the readers, as a
  // client would (readers.counts.unavailable): it is not a torn read.
  const seen = {
    reads: 0,
    torn: 0,
    errors: 0,
    unexpected404: 0,
    A: 0,
    B: 0,
    gone: 0,
  };
  let writing = true;
  const loops = Array.from({ length: 6 }, async (_, k) => {
    for (let i = k; writing; i += 7) {
      const [entity, id] = targets[i % targets.length]!;
      const r = await get(entity, id);
      seen.reads += 1;
      if (r.status === 404) {
        if (id >= 2001) seen.gone += 1;
        else seen.unexpected404 += 1;
      } else if (r.status !== 200) seen.errors += 1;
      else {
        const v = versionOf(entity, r.data);
        if (v) seen[v] += 1;
        else seen.torn += 1;
      }
    }
  });
  try {
    // Each record is one UpdateItem, so a file is written quickly: B then A again until the
    // readers have read enough across the changes (ending on A).
    for (let pair = 0; pair < 2 || (seen.reads < 400 && pair < 40); pair += 1)
      for (const v of ['B', 'A'] as Version[]) await table.importLines(file(v));
  } finally {
    writing = false;
    await Promise.all(loops);
  }
  console.log(
    `every-read-whole: ${seen.reads} GETs, ${seen.torn} torn, ${seen.errors} errors (${readers.counts.unavailable} 503s asked again); A ${seen.A}, B ${seen.B}, deleted ${seen.gone}`,
  );
  expect(seen).toMatchObject({ torn: 0, errors: 0, unexpected404: 0 });
  // The readers ran across the changes: both versions and the deletions were seen.
  expect(seen.reads).toBeGreaterThan(300);
  expect(seen.A).toBeGreaterThan(0);
  expect(seen.B).toBeGreaterThan(0);
  expect(seen.gone).toBeGreaterThan(0);
  // The last file wrote A everywhere, and nothing of an older version is left.
  for (const [entity, id] of targets)
    expect(versionOf(entity, (await get(entity, id)).data)).toBe('A');
}, 180_000);

test('two imports of the same records at once: each record ends whole, as one of the two', async () => {
  const ids = range(3001, 30);
  const file = (v: Version) => [
    ...ids.map((id) => transactionLine(id, v)),
    ...ids.map((id) => customerLine(id, v)),
  ];
  const won = { A: 0, B: 0 };
  for (let round = 0; round < 2; round += 1) {
    await Promise.all([table.importLines(file('A')), table.importLines(file('B'))]);
    for (const id of ids)
      for (const entity of ['transaction', 'customer'] as const) {
        const r = await get(entity, id);
        expect(r.status).toBe(200);
        const v = versionOf(entity, r.data);
        expect(v).toBeDefined();
        won[v!] += 1;
      }
  }
  expect(won.A + won.B).toBe(2 * 60);
}, 120_000);

test('the file put later wins: an earlier one writing after it leaves its records and deletions', async () => {
  const at = Date.now();
  const earlier = importVersion({
    uploadedAt: new Date(at).toISOString(),
    importId: 'a'.repeat(32),
  });
  const later = importVersion({
    uploadedAt: new Date(at + 1000).toISOString(),
    importId: 'b'.repeat(32),
  });
  const laterFile = [
    transactionLine(4001, 'B'),
    customerLine(4001, 'B'),
    JSON.stringify({ delete: { transaction: 4002 } }),
  ];
  const earlierFile = [
    transactionLine(4001, 'A'),
    customerLine(4001, 'A'),
    transactionLine(4002, 'A'),
  ];
  expect(await table.importLines(laterFile, { version: later })).toMatchObject({
    records: 2,
    deletes: 1,
    notFound: 1,
    left: 0,
  });
  // The earlier file's writes land after: each finds the later version and leaves it.
  expect(await table.importLines(earlierFile, { version: earlier })).toMatchObject({
    records: 0,
    left: 3,
    sameSecond: 0,
  });
  expect(versionOf('transaction', (await get('transaction', 4001)).data)).toBe('B');
  expect(versionOf('customer', (await get('customer', 4001)).data)).toBe('B');
  expect((await get('transaction', 4002)).status).toBe(404);
  // The tombstone carries its expiry, for DynamoDB's TTL: every earlier import's horizon past.
  const { Item } = await table.client.send(
    new GetCommand({ TableName: table.tableName, Key: { pk: 'TXN#4002', sk: 'TXN' } }),
  );
  expect(Item).toMatchObject({
    deleted: true,
    v: later,
    expiresAt: BigInt(tombstoneExpiry(later)),
  });
  // Only a tombstone expires: a record's item has no expiry.
  const record = await table.client.send(
    new GetCommand({ TableName: table.tableName, Key: { pk: 'TXN#4001', sk: 'TXN' } }),
  );
  expect(record.Item).not.toHaveProperty('expiresAt');
  // The later file run again (a retry) ends the same, and its counts are the first run's: each
  // item found keeps what the first run replaced.
  expect(await table.importLines(laterFile, { version: later })).toMatchObject({
    records: 2,
    deletes: 1,
    notFound: 1,
    again: 0,
  });
  expect(versionOf('customer', (await get('customer', 4001)).data)).toBe('B');
});

test('files put within the same second: the tiebreak orders them, and both reports say so', async () => {
  const second = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString();
  const early = importVersion({ uploadedAt: second, sequencer: '09', importId: 'e'.repeat(32) });
  const first = importVersion({ uploadedAt: second, sequencer: '0A', importId: 'c'.repeat(32) });
  const then = importVersion({ uploadedAt: second, sequencer: '0B', importId: 'd'.repeat(32) });
  expect(await table.importLines([customerLine(4003, 'A')], { version: first })).toMatchObject({
    records: 1,
    sameSecond: 0,
  });
  expect(await table.importLines([customerLine(4003, 'B')], { version: then })).toMatchObject({
    records: 1,
    sameSecond: 1,
  });
  // A file put in the same second, ordered before both, writing last: left, and it says so.
  expect(await table.importLines([customerLine(4003, 'A')], { version: early })).toMatchObject({
    records: 0,
    left: 1,
    sameSecond: 1,
  });
  // The first import run again: it wrote the record before the later one replaced it.
  expect(await table.importLines([customerLine(4003, 'A')], { version: first })).toMatchObject({
    records: 1,
    left: 0,
  });
  expect(versionOf('customer', (await get('customer', 4003)).data)).toBe('B');
});

test('deletions: a 404 after, missing ids counted, re-creation works', async () => {
  await table.importLines([transactionLine(5001, 'A'), customerLine(5001, 'B')]);
  const summary = await table.importLines([
    JSON.stringify({ delete: { transaction: 5001 } }),
    JSON.stringify({ delete: { customer: 5001 } }),
    JSON.stringify({ delete: { transaction: 5999 } }),
  ]);
  expect(summary).toMatchObject({ records: 0, deletes: 3, notFound: 1 });
  expect(await get('transaction', 5001)).toEqual({
    status: 404,
    data: null,
  });
  expect((await get('customer', 5001)).status).toBe(404);
  // Deleting again: counted as not there.
  expect(
    await table.importLines([JSON.stringify({ delete: { transaction: 5001 } })]),
  ).toMatchObject({
    deletes: 1,
    notFound: 1,
  });
  await table.importLines([transactionLine(5001, 'B')]);
  expect(versionOf('transaction', (await get('transaction', 5001)).data)).toBe('B');
});

test('the same id written and deleted in one file is refused with both lines', async () => {
  const problems: string[] = [];
  await expect(
    table.importLines(
      [
        transactionLine(6001, 'A'),
        JSON.stringify({ delete: { customer: 6001 } }),
        JSON.stringify({ delete: { transaction: 6001 } }),
        customerLine(6001, 'A'),
        JSON.stringify({ delete: { transaction: 6002 } }),
        JSON.stringify({ delete: { transaction: 6002 } }),
      ],
      { onProblem: (p) => problems.push(p) },
    ),
  ).rejects.toThrow('The file has 3 problems; nothing was written');
  expect(problems).toEqual([
    'line 3: delete.transaction: transaction 6001 is written on line 1 and deleted on line 3; a file may do only one',
    'line 4: customer.id: customer 6001 is deleted on line 2 and written on line 4; a file may do only one',
    'line 6: delete.transaction: transaction 6002 is already on line 5',
  ]);
  expect((await get('transaction', 6001)).status).toBe(404);
});

test('each write replaces the item whole: nothing of the record before stays but what PRIOR keeps', async () => {
  const id = 4010;
  const stored = async () =>
    (
      await table.client.send(
        new GetCommand({
          TableName: table.tableName,
          Key: { pk: `CUS#${id}`, sk: 'CUS' },
          ConsistentRead: true,
        }),
      )
    ).Item!;
  const prior = priorAttributesOf(CUSTOMER);
  const own = (item: Record<string, unknown>) =>
    Object.keys(item)
      .filter((attribute) => !prior.includes(attribute))
      .sort();
  const lookups = ['idNoKey', 'sssKey', 'tinKey', 'tinWhole'];
  await table.importLines([
    line('customer', customer({ id, sss: '12-3456789-0', id_photo: 'id-photos/first.png' })),
  ]);
  const first = own(await stored());
  expect(first).toEqual(expect.arrayContaining(lookups));
  // Without the TIN, SSS number and ID number, their lookups' keys go too.
  await table.importLines([line('customer', customer({ id, tin: null, sss: null, id_no: null }))]);
  expect(own(await stored())).toEqual(first.filter((a) => !lookups.includes(a)));
  await table.importLines([JSON.stringify({ delete: { customer: id } })]);
  const tombstone = await stored();
  expect(own(tombstone)).toEqual(['deleted', 'expiresAt', 'pk', 'sk', 'v']);
  // What the two records before it named.
  expect(tombstone).toMatchObject({ was_id_photo: null, was2_id_photo: 'id-photos/first.png' });
});
