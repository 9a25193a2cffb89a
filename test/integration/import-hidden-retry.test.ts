/**
 * A lost answer the SDK hid (issue 55): the client's own retry (`maxAttempts`) sends the write
 * again after its first send landed, or not, without an answer; later files wrote the record in
 * between. The retry then finds a later version, and the writer hears only a condition that
 * failed on the second attempt. What the item found keeps of the items before it
 * (core/layout.ts PRIOR) decides: written (and the file its first send left listed), left, or,
 * where two later files wrote since, "may have been written" (`maybe`), in the report and in
 * the record's audit event alike.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { MiddlewareStack } from '@smithy/types';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { TRANSACTION } from '../../core/entities.ts';
import { itemOf } from '../../core/layout.ts';
import { importVersion } from '../../core/import-version.ts';
import { createTimeCodec } from '../../core/times.ts';
import { createLineParser } from '../../import/records.ts';
import { importIdOf } from '../../import/steps/work-folder.ts';
import { writeRecord } from '../../import/writer.ts';
import { localStepDeps, runWorkflow } from '../../local/step-functions/import-runner.ts';
import { line, transaction } from '../fixtures.ts';
import { dropForTests } from '../support/drop.ts';

const env = dropForTests();
const parse = createLineParser(createTimeCodec('UTC'));

/** A version of an upload at `at`: before or after any this test's import gets. */
const versionAt = (at: string, n: number) =>
  importVersion({ uploadedAt: at, sequencer: '1', importId: `${n}`.repeat(32) });

/**
 * Another import's write of the transaction, naming `signature`, as its writer sends it; or
 * (`legacy`) as a PutItem of the item alone, as writers did before items kept PRIOR's.
 */
async function writeAs(version: string, id: number, signature: string, legacy = false) {
  const parsed = parse(line('transaction', transaction({ id, signature })));
  if (!parsed.ok || parsed.kind !== 'put') throw new Error('fixture is invalid');
  const { table } = env.drop;
  if (legacy) {
    const Item = itemOf(TRANSACTION, parsed.record, version);
    await table.client.send(new PutCommand({ TableName: table.tableName, Item }));
    return;
  }
  const written = await writeRecord(
    { client: table.client, tableName: table.tableName, version },
    { kind: 'put', entity: TRANSACTION, id: BigInt(id), record: parsed.record },
  );
  expect(written.outcome).toBe('written');
}

/**
 * Imports one transaction line (signature `signatures/t-1.png`) whose first send is answered
 * with a timeout the SDK retries: landed first or not, and `later` files' writes in between.
 */
async function importWithLostAnswer(
  txnId: number,
  { landed, later, legacy = [] }: { landed: boolean; later: string[]; legacy?: number[] },
) {
  await writeAs(versionAt('2001-01-01T00:00:00Z', 1), txnId, 'signatures/before.png');
  const deps = localStepDeps(env.drop.target);
  let struck = false;
  // Inside the SDK's retry loop (the deserialize step runs once per attempt).
  (deps.client.middlewareStack as MiddlewareStack<object, object>).add(
    (next) => async (args) => {
      // As sent: the Document Client has put the key in DynamoDB's wire form.
      const key = (args as { input?: { Key?: Record<string, AttributeValue> } }).input?.Key;
      if (struck || key?.pk?.S !== `TXN#${txnId}`) return next(args);
      struck = true;
      if (landed) await next(args);
      for (const [i, version] of later.entries())
        await writeAs(version, txnId, `signatures/later-${i}.png`, legacy.includes(i));
      throw Object.assign(new Error('the answer was lost (test)'), { name: 'TimeoutError' });
    },
    { step: 'deserialize', name: 'lostFirstAnswer' },
  );
  try {
    const input = await env.drop.upload(
      deps,
      `${line('transaction', transaction({ id: txnId }))}\n`,
    );
    const report = await runWorkflow(deps, input);
    expect(struck).toBe(true);
    const importId = importIdOf(input.key, input.versionId);
    const events = env.drop
      .auditEvents()
      .filter((e) => e.importId === importId && e.kind === 'record');
    return { report, events };
  } finally {
    deps.s3.destroy();
    deps.client.destroy();
  }
}

const LATER = ['2999-01-01T00:00:00Z', '2999-01-02T00:00:00Z'].map((at, i) => versionAt(at, i + 2));

test("a first send that landed before a later file's write: written, and the file it left listed", async () => {
  const { report, events } = await importWithLostAnswer(84_000, {
    landed: true,
    later: LATER.slice(0, 1),
  });
  expect(report).toMatchObject({
    outcome: 'imported',
    counts: { records: 1, maybe: 0, left: 0 },
    filesLeft: [expect.stringContaining('"signatures/before.png" is no longer named by')],
  });
  expect(report).not.toHaveProperty('mayHaveWritten');
  expect(events).toEqual([expect.objectContaining({ recordId: '84000' })]);
  expect(events[0]).not.toHaveProperty('maybe');
}, 60_000);

test("a first send that never landed before a later file's write: left, as the later file left it", async () => {
  const { report, events } = await importWithLostAnswer(84_001, {
    landed: false,
    later: LATER.slice(0, 1),
  });
  expect(report).toMatchObject({ outcome: 'imported', counts: { records: 0, maybe: 0, left: 1 } });
  expect(report).toMatchObject({ filesLeft: [] });
  expect(events).toEqual([]);
}, 60_000);

test('a first send that landed, then two later files wrote: maybe, not left, not written', async () => {
  const { report, events } = await importWithLostAnswer(84_002, { landed: true, later: LATER });
  expect(report).toMatchObject({
    outcome: 'imported',
    counts: { records: 0, maybe: 1, left: 0 },
    mayHaveWritten: [expect.stringMatching(/^line 1: /)],
  });
  expect(events).toEqual([expect.objectContaining({ recordId: '84002', maybe: true })]);
}, 60_000);

test('a first send that landed, then a write of an older writer and a later file: maybe, not left', async () => {
  // The older writer's item keeps no PRIOR's: what it replaced is not known, not nothing.
  const { report } = await importWithLostAnswer(84_003, {
    landed: true,
    later: LATER,
    legacy: [0],
  });
  expect(report).toMatchObject({ outcome: 'imported', counts: { records: 0, maybe: 1, left: 0 } });
}, 60_000);
