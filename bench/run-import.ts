/**
 * An import in a child process, with its peak memory: maxRSS at exit (bench/children/max-rss.ts)
 * and RSS sampled from /proc; CPU time of the import and of DynamoDB Local over the run, to tell
 * which of the two bounds the rate. Either the direct import (local/tools/direct-import.ts, the import's
 * own code straight into a table) or `npm run import`'s local drop (bin/import.ts, the workflow
 * and its steps in-process) against a state file that points it at the bench's emulators.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { DynamoDbLocal } from '../local/dynamodb/dynamodb-local.ts';
import { PROJECT_ROOT } from '../core/project-root.ts';
import type { Processes } from './processes.ts';
import type { Results } from './results.ts';
import { median } from './stats.ts';

export type ImportRun = Omit<
  NonNullable<Results['import']>[number],
  'records' | 'fileBytes' | 'recordsPerSecond'
>;

/** CPU seconds (user + system) a process has used so far, from /proc (NaN where there is none). */
export function processCpuSeconds(pid: number | undefined): number {
  try {
    // Fields after the command name, which is in parentheses: utime is the 12th, stime the 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/** The child's RSS every 200 ms; stop() ends the sampling and hands the samples over. */
function sampleRss(child: ChildProcess, started: number) {
  const samples: { at: number; rssKiB: number }[] = [];
  const sampler = setInterval(() => {
    try {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
      if (kib) samples.push({ at: performance.now() - started, rssKiB: kib });
    } catch {
      // exited, or no /proc here: maxRSS at exit still tells the peak
    }
  }, 200);
  return () => (clearInterval(sampler), samples);
}

/** Through the local drop: the directory of its state file, and the drop's settings (unset: its defaults). */
export interface ViaDrop {
  localDataDir: string;
  concurrency?: number;
  partBytes?: number;
}

function spawnImport(
  file: string,
  tableName: string,
  ddb: DynamoDbLocal,
  rssFile: string,
  drop?: ViaDrop,
) {
  const script = drop ? 'bin/import.ts' : 'local/tools/direct-import.ts';
  return spawn(process.execPath, ['--import', './bench/children/max-rss.ts', script, file], {
    cwd: PROJECT_ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      BENCH_MAX_RSS_FILE: rssFile,
      ...(drop
        ? {
            LOCAL_DATA_DIR: drop.localDataDir,
            ...(drop.concurrency === undefined
              ? {}
              : { IMPORT_CONCURRENCY: String(drop.concurrency) }),
            ...(drop.partBytes === undefined ? {} : { IMPORT_PART_BYTES: String(drop.partBytes) }),
          }
        : { TABLE_NAME: tableName, DYNAMODB_ENDPOINT: ddb.endpoint }),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

const medianMiB = (samples: { rssKiB: number }[]) =>
  samples.length ? median(samples.map((s) => s.rssKiB)) / 1024 : Number.NaN;

export async function runImport(
  processes: Processes,
  file: string,
  tableName: string,
  ddb: DynamoDbLocal,
  drop?: ViaDrop,
): Promise<ImportRun> {
  const rssFile = `${file}.rss.json`;
  const dynamoCpuBefore = processCpuSeconds(ddb.pid);
  const started = performance.now();
  const child = processes.track(spawnImport(file, tableName, ddb, rssFile, drop));
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const stopSampling = sampleRss(child, started);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const samples = stopSampling();
  const seconds = (performance.now() - started) / 1000;
  const dynamoCpuSeconds = processCpuSeconds(ddb.pid) - dynamoCpuBefore;
  if (code !== 0) throw new Error(`the import failed (${code}):\n${output}`);
  const { maxRssKiB, cpuSeconds } = JSON.parse(readFileSync(rssFile, 'utf8')) as {
    maxRssKiB: number;
    cpuSeconds: number;
  };
  const halfway = (seconds * 1000) / 2;
  const lines = output.trim().split('\n');
  return {
    seconds,
    cpuSeconds,
    dynamoCpuSeconds,
    maxRssMiB: maxRssKiB / 1024,
    rssFirstHalfMedianMiB: medianMiB(samples.filter((s) => s.at <= halfway)),
    rssSecondHalfMedianMiB: medianMiB(samples.filter((s) => s.at > halfway)),
    // The final count (the drop prints the report's key after it).
    output: lines.find((l) => l.startsWith('Imported')) ?? lines.at(-1) ?? '',
  };
}
