/**
 * One DynamoDB Local for the whole run, started before any worker (./global-setup.js): each test
 * file then makes its own table on it (./dynamodb.ts) instead of starting a JVM of its own, which
 * beside other work took seconds of CPU per file. Its endpoint reaches the workers through their
 * environment. A run of test/unit alone (`npm run test:quick`) needs none and starts none.
 */
import { freePort } from '../../local/net.ts';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../local/dynamodb/dynamodb-local.ts';
import type { LocalRigOptions } from '../../local/rig/rig.ts';

/** The variable that gives the workers the run's DynamoDB Local. */
export const SHARED_DYNAMODB_ENDPOINT = 'TEST_DYNAMODB_ENDPOINT';

/** Starts it unless every test path pattern of the run is under test/unit. */
export async function startSharedDynamoDb(
  patterns: readonly string[],
): Promise<DynamoDbLocal | undefined> {
  if (patterns.length > 0 && patterns.every((p) => /^test\/unit(\/|$)/.test(p))) return undefined;
  const ddb = await startDynamoDbLocal({
    port: await freePort(),
    tableName: 'shared-run',
    quickJitOnly: true,
  });
  process.env[SHARED_DYNAMODB_ENDPOINT] = ddb.endpoint;
  return ddb;
}

let rigs = 0;

/**
 * A test's local rig: any free port, nothing kept, no request log, and on the run's DynamoDB
 * Local in a table no other rig of the run uses (outside that setup, a JVM of its own).
 */
export function testRigOptions(dataDir: string): LocalRigOptions {
  const endpoint = process.env[SHARED_DYNAMODB_ENDPOINT];
  return {
    port: 0,
    dataDir,
    inMemory: true,
    log: () => undefined,
    ...(endpoint
      ? { dynamoDbEndpoint: endpoint, tableName: `rig-${process.pid}-${(rigs += 1)}` }
      : {}),
  };
}
