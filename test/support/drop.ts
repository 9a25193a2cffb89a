/**
 * The local import drop for one test file: DynamoDB Local (./dynamodb.ts), the local S3 with its
 * import bucket, an audit file, and `drop`, which puts lines into the drop as `npm run import`
 * does and runs the workflow in this process (local/step-functions/import-runner.ts).
 */
import { DEFAULT_TIME_ZONE } from '../../core/settings.ts';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { AUDIT_DIR } from '../../local/rig/state.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../local/net.ts';
import { startReaders } from './readers.ts';
import type { LocalDropOptions } from '../../local/step-functions/import-runner.ts';
import { incomingKey } from '../../commands/import/drop.ts';
import { dropFile } from '../../commands/import/local-drop.ts';
import { putIntoLocalDrop } from '../../commands/import/local-upload.ts';
import type { ExecutionInput, StepDeps } from '../../import/steps/step.ts';
import { startS3 } from '../../local/s3/s3-server.ts';
import { startTestTable } from './dynamodb.ts';

export async function startTestDrop() {
  const dir = mkdtempSync(join(tmpdir(), 'test-drop-'));
  const s3DataDir = join(dir, 's3');
  const [table, s3] = await Promise.all([
    startTestTable(),
    startS3({ port: await freePort(), dataDir: s3DataDir }),
  ]);
  // Day files, as the local rig keeps its trail (local/tools/audit-log.ts).
  const auditFile = join(dir, AUDIT_DIR);
  const target = {
    s3Endpoint: s3.endpoint,
    importBucketName: s3.importBucketName,
    dynamoDbEndpoint: table.endpoint,
    tableName: table.tableName,
    displayTimeZone: DEFAULT_TIME_ZONE,
    auditFile,
  };
  let files = 0;
  /** A file of these lines (or bytes), as given: no newline is added. */
  const fileOf = (content: string | Buffer): string => {
    const file = join(dir, `import-${(files += 1)}.jsonl`);
    writeFileSync(file, content);
    return file;
  };
  return {
    table,
    s3,
    /** The local S3's files, as state.json names them (`s3DataDir`). */
    s3DataDir,
    target,
    auditFile,
    fileOf,
    /**
     * A file of these lines put into the drop, as `npm run import` puts it, through the clients of
     * `deps`: the workflow's input, for runWorkflow (not started).
     */
    upload: (deps: StepDeps, content: string | Buffer): Promise<ExecutionInput> => {
      const path = fileOf(content);
      return putIntoLocalDrop(deps.s3, target.importBucketName, path, incomingKey(path));
    },
    /** `checkFiles`: warn of file keys the local files bucket lacks, as `npm run import` does. */
    drop: (
      content: string | Buffer,
      options: LocalDropOptions & { displayTimeZone?: string; checkFiles?: boolean } = {},
    ) =>
      dropFile(
        {
          ...target,
          displayTimeZone: options.displayTimeZone ?? DEFAULT_TIME_ZONE,
          ...(options.checkFiles ? { filesBucketName: s3.bucketName } : {}),
        },
        fileOf(content),
        options,
      ),
    /** The audit events written so far, parsed. */
    auditEvents: (): Record<string, unknown>[] =>
      (existsSync(auditFile) ? readdirSync(auditFile).sort() : [])
        .flatMap((day) => readFileSync(join(auditFile, day), 'utf8').split('\n'))
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    stop: async () => {
      await Promise.allSettled([table.stop(), s3.stop()]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The local drop and readers of its table for the tests of one file: started before them,
 * stopped after. Its fields are set once beforeAll has run.
 */
export function dropForTests() {
  const env = {} as {
    drop: Awaited<ReturnType<typeof startTestDrop>>;
    readers: Awaited<ReturnType<typeof startReaders>>;
  };
  beforeAll(async () => {
    env.drop = await startTestDrop();
    env.readers = await startReaders(env.drop.table.endpoint, env.drop.table.tableName);
  }, 90_000);
  afterAll(async () => env.drop?.stop());
  return env;
}
