/**
 * `npm start` on a data directory written by the earlier table layout (each child an item of its
 * own): it says what to do rather than serve records the API would answer 503 for.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { startDynamoDbLocal } from '../../local/dynamodb/dynamodb-local.ts';
import { choosePort } from '../../local/net.ts';
import { DEFAULT_TABLE_NAME, startLocalStack } from '../../local/stack/stack.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'old-layout-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

test('a data directory of the earlier layout: npm start refuses and says what to do', async () => {
  const table = await startDynamoDbLocal({
    port: await choosePort(0, 'DynamoDB Local'),
    tableName: DEFAULT_TABLE_NAME,
    dbPath: join(dataDir, 'dynamodb'),
  });
  try {
    // The earlier layout's record: an item counting its children, and a child item of its own.
    const items: Record<string, AttributeValue>[] = [
      { pk: { S: 'TXN#1' }, sk: { S: 'TXN' }, id: { N: '1' }, v: { S: 'a' }, n: { N: '1' } },
      { pk: { S: 'TXN#1' }, sk: { S: 'LINE#a#0000000000000001' }, id: { N: '1' } },
    ];
    for (const Item of items)
      await table.client.send(new PutItemCommand({ TableName: DEFAULT_TABLE_NAME, Item }));
  } finally {
    await table.stop();
  }
  await expect(
    startLocalStack({ port: 0, dataDir, seedFile: false, log: () => undefined }),
  ).rejects.toThrow(
    `${dataDir} holds records in the table layout of an earlier version (each currency line and risk assessment an item of its own); this version keeps each record in one item, and would answer 503 for those records. Move the directory aside (or delete it) and run \`npm start\` again`,
  );
}, 120_000);
