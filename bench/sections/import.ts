/** 6. Import: generated files of each size through the direct import into a fresh table. */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { ensureTable, type DynamoDbLocal } from '../../local/dynamodb/dynamodb-local.ts';
import { log, WORK, type BenchConfig } from '../config.ts';
import { writeImportFile } from '../generate.ts';
import type { Processes } from '../processes.ts';
import type { Results } from '../results.ts';
import { runImport } from '../run-import.ts';

export async function measureImport(
  config: BenchConfig,
  processes: Processes,
  ddb: DynamoDbLocal,
): Promise<NonNullable<Results['import']>> {
  const out: NonNullable<Results['import']> = [];
  for (const size of config.importSizes) {
    const file = join(WORK, `import-${size}.jsonl`);
    const { bytes } = writeImportFile(file, size);
    const tableName = `import-${size}`;
    await ensureTable(ddb.client, tableName);
    log(`import: ${size} records (${(bytes / 2 ** 20).toFixed(0)} MiB) with the direct import`);
    const run = await runImport(processes, file, tableName, ddb);
    if (!run.output.startsWith(`Imported ${size} records`))
      throw new Error(`the direct import did not import ${size} records: ${run.output}`);
    out.push({ records: size, fileBytes: bytes, ...run, recordsPerSecond: size / run.seconds });
    rmSync(file, { force: true });
  }
  return out;
}
