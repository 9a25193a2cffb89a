import type { Bundle } from '../bundles.ts';
import type { BenchConfig } from '../config.ts';
import { lambdaEnv } from '../lambda-env.ts';
import type { Invoker, Processes } from '../processes.ts';

/** What every section is handed: the options, the built bundles, the process bookkeeping. */
export interface BenchRun {
  config: BenchConfig;
  processes: Processes;
  invoker: Invoker;
  bundle: (name: string) => Bundle;
  /** The stock floor, the deployed bundles, and the two variants they are compared with. */
  names: string[];
}

/** The environment of a bundle: Lambda's, with the NODE_OPTIONS the bundle stands for. */
export const envOf = (run: BenchRun, name: string, extra: Record<string, string> = {}) =>
  lambdaEnv({ NODE_OPTIONS: run.bundle(name).nodeOptions, ...extra });
