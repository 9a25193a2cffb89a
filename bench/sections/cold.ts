/** 1. Cold start: each bundle imported in fresh processes, rounds rotated, ratios paired. */
import { REFERENCE } from '../bundle-names.ts';
import { log } from '../config.ts';
import { lambdaEnv } from '../lambda-env.ts';
import { invoke } from '../processes.ts';
import type { Results } from '../results.ts';
import { pairedRatio, rounds } from '../rounds.ts';
import { summarize } from '../stats.ts';
import { envOf, type BenchRun } from './bench-run.ts';

type Cold = { importMs: number; importedAt: number; cpuMs: number };

export async function measureCold(run: BenchRun): Promise<NonNullable<Results['cold']>> {
  const { names, config, bundle } = run;
  log(`cold start: ${config.coldRuns} rounds of ${names.join(', ')}, fresh processes`);
  // The file cache warmed up first.
  await invoke(run.invoker, { mode: 'cold', bundle: bundle(REFERENCE).file }, lambdaEnv());
  const runs = await rounds(config.coldRuns, names, (name) =>
    invoke<Cold>(run.invoker, { mode: 'cold', bundle: bundle(name).file }, envOf(run, name)),
  );
  return Object.fromEntries(
    names.map((n) => [
      n,
      {
        importMs: summarize(runs[n]!.map((r) => r.importMs)),
        importedAt: summarize(runs[n]!.map((r) => r.importedAt)),
        cpuMs: summarize(runs[n]!.map((r) => r.cpuMs)),
        paired: {
          importedAt: pairedRatio(runs, n, (r: Cold) => r.importedAt),
          cpuMs: pairedRatio(runs, n, (r: Cold) => r.cpuMs),
        },
      },
    ]),
  );
}
