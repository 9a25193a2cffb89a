/**
 * 11. One WritePart on one core: what one worker of a stage writes, the figure the backfill
 * model (bench/backfill-model.ts) scales from. A generated file whose first part is a whole
 * 8 MiB part goes into the drop, then the workflow's steps run on it one at a time, each in a
 * child process held to core 0 (bench/children/write-part.ts: a 1,769 MB function has one vCPU),
 * while DynamoDB Local (in memory, the bench's) and this process (the local S3) are held to
 * core 1. Plan, CheckPart and Verify are timed as well: the model's other phases. Each run
 * writes into a fresh table; the first run is discarded (DynamoDB Local's write path warms up).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { putIntoDrop } from '../../commands/import/drop.ts';
import type { Part } from '../../import/parts.ts';
import { readJson } from '../../import/steps/work-folder.ts';
import { type CheckResult } from '../../import/steps/check-part.ts';
import { type PlanResult } from '../../import/steps/plan.ts';
import { PROJECT_ROOT } from '../../core/project-root.ts';
import { ensureTable, type DynamoDbLocal } from '../../local/dynamodb/dynamodb-local.ts';
import type { LocalDropTarget } from '../../local/step-functions/import-runner.ts';
import { freePort } from '../../local/net.ts';
import { startS3 } from '../../local/s3/s3-server.ts';
import { s3Client } from '../../local/s3/s3-client.ts';
import { affinityOf, affinityProblem, onCpus, setAffinity } from '../affinity.ts';
import type { WorkerResult, WorkerSpec, WorkerStep } from '../children/write-part.ts';
import { log, WORK, type BenchConfig } from '../config.ts';
import { writeImportFile } from '../generate.ts';
import type { Processes } from '../processes.ts';
import type { Results } from '../results.ts';
import { processCpuSeconds } from '../run-import.ts';

type WritePartResults = NonNullable<Results['writePart']>;

/** The step's core, and the other one for DynamoDB Local and the local S3. */
const CPUS = { step: '0', others: '1' } as const;

/** One step in a child process on the step's core; its figures and DynamoDB Local's CPU meanwhile. */
async function runStep(
  processes: Processes,
  ddb: DynamoDbLocal,
  spec: Omit<WorkerSpec, 'resultFile'>,
  dir: string,
) {
  const resultFile = join(dir, `${spec.step}.json`);
  rmSync(resultFile, { force: true });
  const script = join(PROJECT_ROOT, 'bench', 'children', 'write-part.ts');
  const { command, args } = onCpus(CPUS.step, process.execPath, [
    script,
    JSON.stringify({ ...spec, resultFile }),
  ]);
  const load = loadavg()[0]!;
  const dynamoBefore = processCpuSeconds(ddb.pid);
  const child = processes.track(
    spawn(command, args, {
      cwd: PROJECT_ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
      stdio: ['ignore', 'ignore', 'pipe'],
    }),
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const dynamoCpuSeconds = processCpuSeconds(ddb.pid) - dynamoBefore;
  if (code !== 0) throw new Error(`write-part: the ${spec.step} step failed (${code}):\n${stderr}`);
  const result = JSON.parse(readFileSync(resultFile, 'utf8')) as WorkerResult;
  return { ...result, dynamoCpuSeconds, load };
}

export async function measureWritePart(
  config: BenchConfig,
  processes: Processes,
  ddb: DynamoDbLocal,
): Promise<WritePartResults> {
  const problem = affinityProblem();
  if (problem) throw new Error(`write-part holds its step to one core: ${problem}`);
  if (ddb.pid === undefined) throw new Error('write-part: DynamoDB Local has no process id');
  const dir = join(WORK, 'write-part');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const s3 = await startS3({ port: await freePort(), dataDir: join(dir, 's3') });
  const s3c = s3Client(s3.endpoint);
  const file = join(dir, `file-${config.writePartFileRecords}.jsonl`);
  const { bytes } = writeImportFile(file, config.writePartFileRecords);
  const restore = [ddb.pid, process.pid].map((pid) => ({ pid, cpus: affinityOf(pid) }));
  const out: WritePartResults = {
    fileRecords: config.writePartFileRecords,
    fileBytes: bytes,
    partRecords: 0,
    partBytes: 0,
    cpus: { ...CPUS },
    runs: [],
  };
  try {
    for (const { pid } of restore) setAffinity(pid, CPUS.others);
    for (let run = 0; run <= config.writePartRuns; run += 1) {
      const tableName = `write-part-${run}`;
      await ensureTable(ddb.client, tableName);
      const target: LocalDropTarget = {
        s3Endpoint: s3.endpoint,
        importBucketName: s3.importBucketName,
        dynamoDbEndpoint: ddb.endpoint,
        tableName,
        displayTimeZone: 'UTC',
        auditFile: join(dir, `audit-${run}.jsonl`),
      };
      const event = await putIntoDrop(s3c, s3.importBucketName, file, `incoming/part-${run}.jsonl`);
      const step = async (name: WorkerStep, part?: WorkerSpec['part']) => {
        log(`write-part: run ${run}${run === 0 ? ' (discarded)' : ''}, ${name}`);
        const result = await runStep(processes, ddb, { step: name, target, event, part }, dir);
        if (run > 0) {
          const { seconds, cpuMs, dynamoCpuSeconds, maxRssMiB, load } = result;
          out.runs.push({ run, step: name, seconds, cpuMs, dynamoCpuSeconds, maxRssMiB, load });
        }
        return result.output;
      };
      const planned = (await step('plan')) as PlanResult;
      const parts = await readJson<Part[]>(s3c, s3.importBucketName, planned.manifestKey);
      const first = parts?.[0];
      if (!first || parts.length < 2)
        throw new Error(
          `write-part: the file made ${parts?.length ?? 0} parts, not a whole first part and more`,
        );
      const part = {
        importId: planned.importId,
        version: planned.version,
        bucket: s3.importBucketName,
        key: planned.key,
        versionId: event.versionId,
        part: first,
      };
      const checked = (await step('check', part)) as CheckResult;
      await step('verify', part);
      const written = (await step('write', part)) as { records: number };
      if (checked.problems > 0 || written.records !== checked.records)
        throw new Error(
          `write-part: part 0 checked ${checked.records} records (${checked.problems} problems), wrote ${written.records}`,
        );
      out.partRecords = checked.records;
      out.partBytes = first.end - first.start;
      await ddb.client.send(new DeleteTableCommand({ TableName: tableName }));
    }
  } finally {
    for (const { pid, cpus } of restore)
      try {
        setAffinity(pid, cpus);
      } catch {
        // DynamoDB Local already stopped (a failure stopped the run): nothing to give back
      }
    s3c.destroy();
    await s3.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}
