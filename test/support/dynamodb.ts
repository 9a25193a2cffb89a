/**
 * A table of the project's layout for one test file, on the run's DynamoDB Local
 * (./shared-dynamodb.ts), named apart from every other file's; or, run outside that setup, on a
 * DynamoDB Local of its own.
 */
import { DEFAULT_TIME_ZONE } from '../../core/settings.ts';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../local/net.ts';
import { attachDynamoDbLocal, startDynamoDbLocal } from '../../local/dynamodb/dynamodb-local.ts';
import { SHARED_DYNAMODB_ENDPOINT } from './shared-dynamodb.ts';
import { createDocumentClient } from '../../functions/shared/document-client.ts';
import { importFile, type ImportOptions } from '../../import/direct-import.ts';

export const TEST_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
/** The tests' cursor secret (a stage's is its own: lib/api.ts). */
export const TEST_CURSOR_KEY = 'test-cursor-key-0123456789abcdef0123456789';

let tables = 0;

export async function startTestTable(name = 'test-table') {
  const shared = process.env[SHARED_DYNAMODB_ENDPOINT];
  const tableName = shared ? `${name}-${process.pid}-${(tables += 1)}` : name;
  const ddb = shared
    ? await attachDynamoDbLocal(shared, tableName)
    : await startDynamoDbLocal({ port: await freePort(), tableName, quickJitOnly: true });
  const client = createDocumentClient({
    region: 'us-east-1',
    endpoint: ddb.endpoint,
    credentials: TEST_CREDENTIALS,
    // The tests' own setup and checks: patient, as the import command is, on a loaded machine.
    requestTimeoutMs: 10_000,
  });
  const files = mkdtempSync(join(tmpdir(), 'test-table-'));
  let imports = 0;
  return {
    endpoint: ddb.endpoint,
    tableName,
    client,
    /**
     * Imports these lines of an import file (SPEC 6) as `npm run import` does: written to a file,
     * read back by the import, times in the default zone (as the functions show them) unless the
     * options say otherwise.
     */
    importLines: (lines: readonly string[], options: Partial<ImportOptions> = {}) => {
      const file = join(files, `import-${(imports += 1)}.jsonl`);
      writeFileSync(file, `${lines.join('\n')}\n`);
      return importFile(file, {
        client,
        tableName,
        displayTimeZone: DEFAULT_TIME_ZONE,
        ...options,
      });
    },
    stop: async () => {
      client.destroy();
      await ddb.stop();
      rmSync(files, { recursive: true, force: true });
    },
  };
}
