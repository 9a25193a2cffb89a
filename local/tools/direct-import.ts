/**
 * The direct import (import/direct-import.ts) as a process of its own, into a local table only
 * (TABLE_NAME at DYNAMODB_ENDPOINT, DynamoDB Local's credentials): for the test that kills it
 * (test/integration/import-crash.test.ts) and the bench's comparison with the drop. Users import
 * through the drop (`npm run import`); this is the same validation and writing code its steps run.
 */
import { createDocumentClient } from '../../functions/shared/document-client.ts';
import { plural } from '../../core/plural.ts';
import { importFile } from '../../import/direct-import.ts';
import { EMULATOR_REQUEST_TIMEOUT_MS } from '../net.ts';
import { FUNCTION_ENV } from '../../core/function-env.ts';

const client = createDocumentClient({
  region: 'us-east-1',
  endpoint: process.env[FUNCTION_ENV.dynamoDbEndpoint]!,
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  maxAttempts: 5,
  requestTimeoutMs: EMULATOR_REQUEST_TIMEOUT_MS,
});
const summary = await importFile(process.argv[2]!, {
  client,
  tableName: process.env[FUNCTION_ENV.tableName]!,
  displayTimeZone: 'UTC',
  // One line as writing starts: the instant the crash test's kills count from.
  onProgress: (done, total) => {
    if (done === 0) process.stderr.write(`Importing: ${done} of ${total} records\n`);
  },
});
client.destroy();
const { records, transactions, customers, deletes } = summary;
console.log(
  `Imported ${plural(records, 'record')} (${plural(transactions, 'transaction')}, ${plural(customers, 'customer')}), deleted ${deletes}`,
);
