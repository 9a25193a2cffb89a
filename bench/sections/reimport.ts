/**
 * 8. GETs (readRecord, as the functions call it) by several readers while the direct import
 * replaces the same transactions again and again, 20 lines <-> 8 lines: what they cost, and that
 * none was torn.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TRANSACTION } from '../../core/entities.ts';
import { createTableClient } from '../../functions/sdk/table-client.ts';
import { createStore, type RecordStore } from '../../functions/shared/store.ts';
import { ensureTable, type DynamoDbLocal } from '../../local/dynamodb/dynamodb-local.ts';
import { log, WORK, type BenchConfig } from '../config.ts';
import { line, transactionRecord } from '../generate.ts';
import type { Processes } from '../processes.ts';
import type { Results } from '../results.ts';
import { runImport } from '../run-import.ts';
import { summarize } from '../stats.ts';

const LINES = { A: 20, B: 8 } as const;
type Version = keyof typeof LINES;

/** Both versions' files, and each version's line count by `id total_amount`. */
function writeVersions(count: number) {
  const files = { A: join(WORK, 'reimport-a.jsonl'), B: join(WORK, 'reimport-b.jsonl') };
  const expected = new Map<string, number>();
  for (const v of ['A', 'B'] as const) {
    const text: string[] = [];
    for (let id = 1; id <= count; id += 1) {
      const record = transactionRecord(id, LINES[v]) as { total_amount: string };
      expected.set(`${id} ${record.total_amount}`, LINES[v]);
      text.push(line('transaction', record));
    }
    writeFileSync(files[v], `${text.join('\n')}\n`);
  }
  return { files, expected };
}

/** What the readers saw, as they go. */
function readerStats() {
  return { latency: [] as number[], torn: 0, failed: 0, writing: true };
}
type ReaderStats = ReturnType<typeof readerStats>;

/** One reader: GETs of the transactions in turn until the writing stops. */
async function read(
  store: RecordStore,
  target: { count: number; readers: number; k: number },
  expected: Map<string, number>,
  stats: ReaderStats,
): Promise<void> {
  for (let i = target.k; stats.writing; i += target.readers) {
    const id = BigInt(1 + (i % target.count));
    const started = performance.now();
    try {
      const r = await store.readRecord(TRANSACTION, id);
      stats.latency.push(performance.now() - started);
      const lines = (r?.transaction_currencies as unknown[] | undefined)?.length;
      if (expected.get(`${id} ${String(r?.total_amount)}`) !== lines) stats.torn += 1;
    } catch {
      stats.failed += 1;
    }
  }
}

export async function measureReimport(
  config: BenchConfig,
  processes: Processes,
  ddb: DynamoDbLocal,
): Promise<NonNullable<Results['reimport']>> {
  const { reimportRecords: count, reimportRounds: rounds, reimportReaders: readers } = config;
  const tableName = 'reimport';
  await ensureTable(ddb.client, tableName);
  const { files, expected } = writeVersions(count);
  log(`reimport: ${count} transactions, ${rounds} re-imports under ${readers} readers`);
  await runImport(processes, files.A, tableName, ddb);

  const client = createTableClient({
    region: 'us-east-1',
    endpoint: ddb.endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const stats = readerStats();
  const store = createStore(client, tableName);
  const reading = Array.from({ length: readers }, (_, k) =>
    read(store, { count, readers, k }, expected, stats),
  );
  const started = performance.now();
  for (let round = 0; round < rounds; round += 1) {
    const version: Version = round % 2 === 0 ? 'B' : 'A';
    await runImport(processes, files[version], tableName, ddb);
  }
  const importSeconds = (performance.now() - started) / 1000;
  stats.writing = false;
  await Promise.all(reading);
  client.destroy();
  for (const file of Object.values(files)) rmSync(file, { force: true });
  const { latency, torn, failed } = stats;
  return {
    records: count,
    rounds,
    readers,
    importSeconds,
    recordsPerSecond: (count * rounds) / importSeconds,
    gets: latency.length,
    torn,
    failed,
    latency: summarize(latency),
  };
}
