/**
 * Import files into a running local rig's table as `npm run import` would write them (the
 * direct import, times in the default zone): tests seed what their pages and lookups read.
 */
import { DEFAULT_TIME_ZONE } from '../../core/settings.ts';
import { createDocumentClient } from '../../functions/shared/document-client.ts';
import { importFile } from '../../import/direct-import.ts';
import type { LocalRig } from '../../local/rig/rig.ts';
import { TEST_CREDENTIALS } from './dynamodb.ts';

export async function importInto(rig: LocalRig, files: readonly string[]): Promise<void> {
  const client = createDocumentClient({
    region: 'us-east-1',
    endpoint: rig.dynamoDbEndpoint,
    credentials: TEST_CREDENTIALS,
    requestTimeoutMs: 10_000,
  });
  try {
    for (const file of files)
      await importFile(file, {
        client,
        tableName: rig.tableName,
        displayTimeZone: DEFAULT_TIME_ZONE,
      });
  } finally {
    client.destroy();
  }
}
