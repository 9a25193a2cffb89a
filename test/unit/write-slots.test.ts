/**
 * Write slots (import/write-records.ts): writes that share them keep to them together, which is how
 * the local drop's parts, all in one process, keep to one import's groups in flight. The table is
 * a stand-in that answers after a moment: DynamoDB Local answers too fast to hold a bound full.
 */
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TRANSACTION } from '../../core/entities.ts';
import { PARTITION_KEY, partitionKey } from '../../core/layout.ts';
import { startVersion } from '../../core/import-version.ts';
import { writeRecords, writeSlots } from '../../import/write-records.ts';
import { type Parsed } from '../../import/checked-lines.ts';

/**
 * A table that answers after a moment and counts requests in flight. Each record is one
 * UpdateItem and each group here one record: requests in flight are groups in flight.
 */
function slowTable(failOn?: bigint) {
  const refused = failOn === undefined ? undefined : partitionKey(TRANSACTION, failOn);
  const seen = { inFlight: 0, most: 0, puts: [] as string[] };
  const client = {
    send: async (command: { input: Record<string, unknown> }) => {
      seen.inFlight += 1;
      seen.most = Math.max(seen.most, seen.inFlight);
      try {
        await new Promise((resolve) => setTimeout(resolve, 5));
        if (!(command instanceof UpdateCommand)) throw new Error('the writer only updates');
        const key = String((command.input.Key as Record<string, unknown>)[PARTITION_KEY]);
        seen.puts.push(key);
        if (key === refused) throw new Error('refused');
        return {};
      } finally {
        seen.inFlight -= 1;
      }
    },
  } as unknown as DynamoDBDocumentClient;
  return { client, seen };
}

async function* deletes(from: number, count: number): AsyncIterable<Parsed> {
  for (let i = 0; i < count; i += 1)
    yield { kind: 'delete', entity: TRANSACTION, id: BigInt(from + i), lineNo: i + 1 };
}

const options = (client: DynamoDBDocumentClient) => ({
  client,
  tableName: 'records',
  version: startVersion(),
  recordsPerGroup: 1,
});

test('writes sharing slots keep to them together; each alone keeps to its own concurrency', async () => {
  const shared = slowTable();
  const slots = writeSlots(3);
  const [a, b] = await Promise.all([
    writeRecords(deletes(1, 20), { ...options(shared.client), slots }),
    writeRecords(deletes(101, 20), { ...options(shared.client), slots }),
  ]);
  expect([a.deletes, b.deletes]).toEqual([20, 20]);
  expect(shared.seen.most).toBe(3);

  const apart = slowTable();
  await Promise.all([
    writeRecords(deletes(1, 20), { ...options(apart.client), concurrency: 4 }),
    writeRecords(deletes(101, 20), { ...options(apart.client), concurrency: 4 }),
  ]);
  expect(apart.seen.most).toBe(8);
});

test('a write that fails sends none of its groups still waiting for a slot', async () => {
  const { client, seen } = slowTable(1n);
  const slots = writeSlots(1);
  await expect(writeRecords(deletes(1, 5), { ...options(client), slots })).rejects.toThrow(
    'refused',
  );
  expect(seen.puts).toEqual([partitionKey(TRANSACTION, 1n)]);
});
