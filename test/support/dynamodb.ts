/** DynamoDB Local on a free port, in memory, with the project's table, for one test file. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../local/net';
import { startDynamoDbLocal } from '../../local/dynamodb/dynamodb-local';
import { createDocumentClient } from '../../functions/shared/document-client';
import { importFile, type ImportOptions } from '../../import/importer';

export const TEST_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

export async function startTestTable(tableName = 'test-table') {
  const port = await freePort();
  const ddb = await startDynamoDbLocal({ port, tableName });
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
     * read back by the import, times in UTC unless the options say otherwise.
     */
    importLines: (lines: readonly string[], options: Partial<ImportOptions> = {}) => {
      const file = join(files, `import-${(imports += 1)}.jsonl`);
      writeFileSync(file, `${lines.join('\n')}\n`);
      return importFile(file, { client, tableName, displayTimeZone: 'UTC', ...options });
    },
    stop: async () => {
      client.destroy();
      await ddb.stop();
      rmSync(files, { recursive: true, force: true });
    },
  };
}
