/**
 * 9. Import through the local drop: the same generated file imported by the direct import and by
 * `npm run import`'s local drop (bin/import.ts: the workflow run by aws-local-stepfunctions, the
 * steps' handlers in-process) at 1, 2 and 4 workers (the Map's MaxConcurrency), each into a fresh
 * table of the same DynamoDB Local, in the same run, in pairs side by side and in rounds: one
 * import's CPU spreads ±10 % from run to run here, so the report compares medians of pairs. The
 * local S3 runs in this process, so the import child's CPU is the import's own.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureTable, type DynamoDbLocal } from '../../local/dynamodb/dynamodb-local.ts';
import { freePort } from '../../local/net.ts';
import { startS3 } from '../../local/s3/s3-server.ts';
import type { LocalState } from '../../local/rig/state.ts';
import { log, WORK, type BenchConfig } from '../config.ts';
import { writeImportFile } from '../generate.ts';
import type { Processes } from '../processes.ts';
import type { Results } from '../results.ts';
import { runImport } from '../run-import.ts';

export const DROP_WORKERS = [1, 2, 4] as const;
/**
 * Parts per file: one per worker at the most workers. Each part costs the same whatever its size
 * (its S3 reads and writes, its writers' pipeline filling and draining); a stage's part is 8 MiB
 * (about 10,000 records), so smaller parts here would weigh a cost on the drop that AWS spreads
 * over ten times the records.
 */
const PARTS = Math.max(...DROP_WORKERS);
/** Records of the small file whose CPU is each way's fixed cost. */
const SMALL = 10;

export async function measureDrop(
  config: BenchConfig,
  processes: Processes,
  ddb: DynamoDbLocal,
): Promise<NonNullable<Results['drop']>> {
  const dir = join(WORK, 'drop');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const s3 = await startS3({ port: await freePort(), dataDir: join(dir, 's3') });
  const records = config.dropRecords;
  const file = join(dir, `drop-${records}.jsonl`);
  const { bytes } = writeImportFile(file, records);
  const partBytes = Math.ceil(bytes / PARTS);
  // A file of a few records: what each way costs whatever the size (starting, loading code).
  const small = join(dir, `drop-${SMALL}.jsonl`);
  writeImportFile(small, SMALL);
  const out: NonNullable<Results['drop']> = [];
  let runs = 0;
  const importOnce = async (path: string, count: number, name: string, workers: number | null) => {
    const tableName = `drop-${name}-${(runs += 1)}`;
    await ensureTable(ddb.client, tableName);
    const state: Partial<LocalState> = {
      tableName,
      dynamoDbEndpoint: ddb.endpoint,
      s3Endpoint: s3.endpoint,
      importBucketName: s3.importBucketName,
      displayTimeZone: 'UTC',
    };
    const localDataDir = join(dir, name);
    mkdirSync(localDataDir, { recursive: true });
    writeFileSync(join(localDataDir, 'state.json'), JSON.stringify(state));
    log(
      `drop: ${count} records, ${workers === null ? 'direct import' : `drop, ${workers} workers`}`,
    );
    const run = await runImport(
      processes,
      path,
      tableName,
      ddb,
      workers === null ? undefined : { localDataDir, concurrency: workers, partBytes },
    );
    if (!run.output.startsWith(`Imported ${count} records`))
      throw new Error(`the ${name} import did not import ${count} records: ${run.output}`);
    return run;
  };
  const fixed = { direct: 0, drop: 0 };
  const row = async (name: string, workers: number | null, pair: number) => {
    const mode = workers === null ? 'direct' : 'drop';
    const run = await importOnce(file, records, name, workers);
    out.push({
      mode,
      pair,
      workers: workers ?? 1,
      parts: workers === null ? 1 : PARTS,
      records,
      fileBytes: bytes,
      seconds: run.seconds,
      recordsPerSecond: records / run.seconds,
      cpuSeconds: run.cpuSeconds,
      cpuMsPerRecord: (run.cpuSeconds * 1000) / records,
      fixedCpuSeconds: fixed[mode],
      marginalCpuMsPerRecord: ((run.cpuSeconds - fixed[mode]) * 1000) / (records - SMALL),
      dynamoCpuSeconds: run.dynamoCpuSeconds,
      maxRssMiB: run.maxRssMiB,
    });
  };
  try {
    // DynamoDB Local's write path warmed up first (its JIT): the first import of a run is slower.
    await importOnce(file, records, 'warm-up', null);
    fixed.direct = (await importOnce(small, SMALL, 'direct', null)).cpuSeconds;
    fixed.drop = (await importOnce(small, SMALL, 'drop', 1)).cpuSeconds;
    // Pairs, each the direct import then the drop, side by side: drift falls on both.
    let pair = 0;
    for (let round = 0; round < config.dropRounds; round += 1)
      for (const workers of DROP_WORKERS) {
        await row('direct', null, pair);
        await row(`w${workers}`, workers, pair);
        pair += 1;
      }
  } finally {
    await s3.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}
