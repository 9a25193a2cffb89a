/**
 * DynamoDB Local for the sections that read or import (first, warm, cost, import, reimport, drop,
 * write-part): the GET and lookup records imported (with their index keys), then read for a while
 * as a GET reads them (the record's GetItem and the access-state UpdateItem together), as the JVM
 * compiles the hot paths of both.
 */
import { join } from 'node:path';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { accessStateKey, countReadRequest } from '../../core/access-state.ts';
import { READ_BUDGET_LIMITS } from '../../core/read-budgets.ts';
import { createDocumentClient } from '../../functions/shared/document-client.ts';
import { importFile } from '../../import/direct-import.ts';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../local/dynamodb/dynamodb-local.ts';
import { freePort } from '../../local/net.ts';
import { CASES, writeSeedFile } from '../cases.ts';
import { log, TABLE, WORK, type BenchConfig } from '../config.ts';
import type { Processes } from '../processes.ts';

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
  log(
    `warming DynamoDB Local up: ${seconds} s of GET requests (GetItem + access-state UpdateItem)`,
  );
  const until = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: 8 }, async (_, k) => {
      for (let i = k; Date.now() < until; i += 1) {
        const pk = Object.values(CASES)[i % 3]!.pk;
        const window = Math.floor(Date.now() / 1000);
        await Promise.all([
          client.send(new GetCommand({ TableName: TABLE, Key: { pk, sk: pk.slice(0, 3) } })),
          // A warm-up user of its own per worker: no measured caller's counts change.
          client
            .send(
              new UpdateCommand({
                TableName: TABLE,
                Key: accessStateKey(`warm-up-${k}`),
                ...countReadRequest(
                  'count',
                  'transaction',
                  window,
                  1,
                  READ_BUDGET_LIMITS.budgetMax,
                ),
                ReturnValues: 'ALL_NEW',
                ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
              }),
              // A slot of 8 s ago is refused (the handler would restart it): a request all the same.
            )
            .catch((error: unknown) => {
              if ((error as { name?: string }).name !== 'ConditionalCheckFailedException')
                throw error;
            }),
        ]);
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
