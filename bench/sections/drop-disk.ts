/**
 * 10. The local drop on disk: `npm run import` (bin/import.ts, its defaults: LOCAL_CONCURRENCY
 * parts at once, 8 MiB parts) against the direct import (local/tools/direct-import.ts), both as section
 * 9 runs them, into a DynamoDB Local that keeps its tables in a file (`-dbPath`, as `npm start`
 * runs it) rather than in memory: there every write goes to SQLite on disk, and an import is
 * many times slower than section 9's. Each import goes into a fresh, empty table; the pairs
 * alternate which way goes first, so that the database file growing under them weighs on both.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { ensureTable, startDynamoDbLocal } from '../../local/dynamodb/dynamodb-local.ts';
import { freePort } from '../../local/net.ts';
import { startS3 } from '../../local/s3/s3-server.ts';
import type { LocalState } from '../../local/rig/state.ts';
import { log, WORK, type BenchConfig } from '../config.ts';
import { writeImportFile } from '../generate.ts';
import type { Processes } from '../processes.ts';
import type { Results } from '../results.ts';
import { runImport } from '../run-import.ts';

type Mode = 'direct' | 'drop';

export async function measureDropDisk(
  config: BenchConfig,
  processes: Processes,
): Promise<NonNullable<Results['dropDisk']>> {
  const dir = join(WORK, 'drop-disk');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const records = config.dropDiskRecords;
  const file = join(dir, `drop-disk-${records}.jsonl`);
  const { bytes } = writeImportFile(file, records);
  // A tenth of the file warms DynamoDB Local's write path (its JIT) up; that import is discarded.
  // On disk the file's syncs, not the JIT, set the pace: a small one is enough.
  const warmUpRecords = Math.ceil(records / 10);
  const warmUpFile = join(dir, `warm-up-${warmUpRecords}.jsonl`);
  writeImportFile(warmUpFile, warmUpRecords);
  log('drop-disk: starting DynamoDB Local on disk');
  const ddb = await startDynamoDbLocal({
    port: await freePort(),
    tableName: 'drop-disk-warm-up',
    dbPath: join(dir, 'dynamodb'),
  });
  let stopping: Promise<void> | undefined;
  const stopTable = () => (stopping ??= ddb.stop());
  processes.onCleanup(stopTable);
  const s3 = await startS3({ port: await freePort(), dataDir: join(dir, 's3') });
  const importOnce = async (mode: Mode, tableName: string, path: string, count: number) => {
    await ensureTable(ddb.client, tableName);
    const localDataDir = join(dir, tableName);
    mkdirSync(localDataDir, { recursive: true });
    const state: Partial<LocalState> = {
      tableName,
      dynamoDbEndpoint: ddb.endpoint,
      s3Endpoint: s3.endpoint,
      importBucketName: s3.importBucketName,
      displayTimeZone: 'UTC',
    };
    writeFileSync(join(localDataDir, 'state.json'), JSON.stringify(state));
    const load = loadavg()[0]!;
    log(`drop-disk: ${count} records, ${mode === 'direct' ? 'direct import' : 'local drop'}`);
    const run = await runImport(
      processes,
      path,
      tableName,
      ddb,
      mode === 'drop' ? { localDataDir } : undefined,
    );
    if (!run.output.startsWith(`Imported ${count} records`))
      throw new Error(
        `drop-disk: the ${mode} import did not import ${count} records: ${run.output}`,
      );
    return { ...run, load };
  };
  const out: NonNullable<Results['dropDisk']> = [];
  try {
    await importOnce('direct', 'drop-disk-warm-up', warmUpFile, warmUpRecords);
    const { min, max } = config.dropDiskPairs;
    const started = performance.now();
    const elapsed = () => (performance.now() - started) / 1000;
    // Another pair only while it would end within the section's time (as long as the last took).
    for (let pair = 0; pair < max; pair += 1) {
      if (pair >= min && elapsed() * (1 + 1 / pair) > config.dropDiskSeconds) break;
      const order: Mode[] = pair % 2 === 0 ? ['direct', 'drop'] : ['drop', 'direct'];
      for (const mode of order) {
        const run = await importOnce(mode, `drop-disk-${mode}-${pair}`, file, records);
        out.push({
          mode,
          pair,
          first: mode === order[0],
          records,
          fileBytes: bytes,
          seconds: run.seconds,
          recordsPerSecond: records / run.seconds,
          cpuSeconds: run.cpuSeconds,
          dynamoCpuSeconds: run.dynamoCpuSeconds,
          maxRssMiB: run.maxRssMiB,
          load: run.load,
        });
      }
    }
  } finally {
    await s3.stop();
    await stopTable();
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}
