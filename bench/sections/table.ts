/**
 * DynamoDB Local for the sections that read or import (first, warm, cost, import, reimport): the
 * GET records imported, then Queried for a while as the JVM compiles its hot paths.
 */
import { join } from 'node:path';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../import/document-client';
import { importFile } from '../../import/importer';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../local/dynamodb';
import { freePort } from '../../local/net';
import { CASES, writeSeedFile } from '../cases';
import { log, TABLE, WORK, type BenchConfig } from '../config';
import type { Processes } from '../processes';

export interface BenchTable {
  ddb: DynamoDbLocal;
  /** Stops DynamoDB Local (once; also on cleanup). */
  stop: () => Promise<void>;
}

async function warmUp(ddb: DynamoDbLocal, seconds: number): Promise<void> {
  const client = createDocumentClient({
    region: 'us-east-1',
    endpoint: ddb.endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const seed = join(WORK, 'seed.jsonl');
  writeSeedFile(seed);
  await importFile(seed, { client, tableName: TABLE, displayTimeZone: 'UTC' });
  log(`warming DynamoDB Local up: ${seconds} s of Queries`);
  const until = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: 8 }, async (_, k) => {
      for (let i = k; Date.now() < until; i += 1) {
        const pk = Object.values(CASES)[i % 3]!.pk;
        await client.send(
          new QueryCommand({
            TableName: TABLE,
            KeyConditionExpression: '#pk = :pk',
            ExpressionAttributeNames: { '#pk': 'pk' },
            ExpressionAttributeValues: { ':pk': pk },
          }),
        );
      }
    }),
  );
  client.destroy();
}

export async function startBenchTable(
  config: BenchConfig,
  processes: Processes,
): Promise<BenchTable> {
  log('starting DynamoDB Local');
  const ddb = await startDynamoDbLocal({ port: await freePort(), tableName: TABLE });
  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= ddb.stop());
  processes.onCleanup(stop);
  await warmUp(ddb, config.tableWarmupSeconds);
  return { ddb, stop };
}
