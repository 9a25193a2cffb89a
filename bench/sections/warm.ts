/**
 * 3. Warm overhead: each production handler invoked in one process again and again, alternating
 * with the warm reference (bench/reference-read.ts: the stock Document Client sending the raw
 * GetItem of the same record and the raw access-state UpdateItem together); then where a
 * warm GET's own time goes. 3b: each lookup (SPEC 10) the same way, against the same client's
 * raw Query of the same index with the same access-state requests.
 */
import { spawn } from 'node:child_process';
import { PROJECT_ROOT } from '../../core/project-root.ts';
import { functionList } from '../../core/routes.ts';
import { REFERENCE_READ } from '../bundle-names.ts';
import { CASES, LOOKUPS_OF_FUNCTION } from '../cases.ts';
import { log } from '../config.ts';
import { lambdaEnv } from '../lambda-env.ts';
import { invoke, type Processes } from '../processes.ts';
import type { Results } from '../results.ts';
import type { BenchRun } from './bench-run.ts';

type Warm = NonNullable<Results['warm']>;
type Lookups = NonNullable<Results['lookups']>;

export async function measureWarm(
  run: BenchRun,
  dynamoDbEndpoint: string,
): Promise<{ gets: Warm; lookups: Lookups }> {
  log(`warm: ${run.config.warmIterations} invocations per case, in one process`);
  const out = { gets: {} as Warm, lookups: {} as Lookups };
  for (const fn of functionList) {
    const cases =
      fn.entity === 'transaction'
        ? [CASES['transaction (1 line)']!, CASES['transaction (50 lines)']!]
        : [CASES.customer!];
    const result = await invoke<{ gets: Warm; lookups: Lookups }>(
      run.invoker,
      {
        mode: 'warm',
        bundle: run.bundle(fn.id).file,
        referenceBundle: run.bundle(REFERENCE_READ).file,
        cases,
        lookups: LOOKUPS_OF_FUNCTION[fn.id] ?? [],
        iterations: run.config.warmIterations,
        warmup: run.config.warmWarmup,
      },
      lambdaEnv({ DYNAMODB_ENDPOINT: dynamoDbEndpoint }),
      ['--expose-gc'],
    );
    Object.assign(out.gets, result.gets);
    Object.assign(out.lookups, result.lookups);
  }
  return out;
}

/** bench/children/breakdown.ts in a child process, its stdout (the functions' log lines) discarded. */
export async function measureBreakdown(
  processes: Processes,
): Promise<NonNullable<Results['breakdown']>> {
  log("warm: where a GET's own time goes (DynamoDB stubbed out, source modules)");
  const child = spawn(process.execPath, ['bench/children/breakdown.ts'], {
    cwd: PROJECT_ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, TZ: ':UTC' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  processes.track(child);
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const line = stderr.split('\n').find((l) => l.startsWith('BENCH '));
  if (code !== 0 || !line) throw new Error(`breakdown failed (${code}): ${stderr}`);
  return JSON.parse(line.slice(6)) as NonNullable<Results['breakdown']>;
}
