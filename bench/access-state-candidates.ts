/**
 * `npx node bench/access-state-candidates.ts`: the read-budget stores that were considered, a year
 * of one user's reads each, against DynamoDB Local in memory (bench/sections/access-history.ts);
 * prints the table docs/performance.md quotes.
 */
import { startDynamoDbLocal } from '../local/dynamodb/dynamodb-local.ts';
import { freePort } from '../local/net.ts';
import { TABLE } from './config.ts';
import { renderHistory } from './report/cost.ts';
import { measureAccessHistory } from './sections/access-history.ts';

const ddb = await startDynamoDbLocal({ port: await freePort(), tableName: TABLE });
try {
  console.log(renderHistory(await measureAccessHistory(ddb.endpoint)).join('\n'));
} finally {
  await ddb.stop();
}
