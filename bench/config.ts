/** The benchmark's options (`--quick`, `--only=`), sizes and repetitions, and its fixed names. */
import { join } from 'node:path';
import { READ_BUDGET_ENV, READ_BUDGET_LIMITS } from '../core/read-budgets.ts';
import { PROJECT_ROOT } from '../core/project-root.ts';

/** Scratch files (bundles, logs, generated imports, results.json); git ignores it. */
export const WORK = join(PROJECT_ROOT, 'bench', '.work');
export const TABLE = 'bench';
export const BUCKET = 'bench-files';
/**
 * The read budgets (SPEC 8) the benchmark's functions run with, as a stage would set them
 * (`-c readBudgetTransactions=...`): the largest allowed, since the benchmark reads far more than
 * a person does, so that no measured GET meets a 429. The window is the default one (300 s):
 * the sections in one process read a few thousand times per caller.
 */
export const BENCH_READ_BUDGETS: Record<string, string> = {
  [READ_BUDGET_ENV.customers]: String(READ_BUDGET_LIMITS.budgetMax),
  [READ_BUDGET_ENV.transactions]: String(READ_BUDGET_LIMITS.budgetMax),
};

/**
 * The local rig's (throughput, soak): the same budgets in 30 s windows. Those runs read as
 * one user per route through the gateway, up to the soak's rate cap (soakMaxRequests over
 * soakSeconds, two thirds of it transactions, about 2,200/s): at most 67,000 reads in 30 s, where
 * a 300 s window could meet the budget on a fast machine. The window changes which counter the
 * UpdateItem adds to, not what it costs.
 */
export const RIG_READ_BUDGETS: Record<string, string> = {
  ...BENCH_READ_BUDGETS,
  [READ_BUDGET_ENV.windowSeconds]: '30',
};

export const SECTIONS = [
  'cold',
  'first',
  'warm',
  'cost',
  'throughput',
  'soak',
  'import',
  'reimport',
  'drop',
  'drop-disk',
  'write-part',
] as const;
export type Section = (typeof SECTIONS)[number];

export function benchConfig(quick: boolean) {
  return {
    coldRuns: quick ? 6 : 40,
    firstRuns: quick ? 5 : 60,
    warmIterations: quick ? 200 : 1500,
    warmWarmup: quick ? 50 : 1000,
    repeat: 20,
    concurrency: [1, 8, 32],
    durationSeconds: quick ? 1 : 3,
    throughputRounds: 2,
    warmupSeconds: quick ? 1 : 5,
    /** Queries of the GET records before the first measure, while DynamoDB Local's JIT warms up. */
    tableWarmupSeconds: quick ? 2 : 8,
    importSizes: quick ? [2_000, 10_000] : [10_000, 100_000],
    /** One file, by the direct import and through the local drop at 1, 2 and 4 workers. */
    dropRecords: quick ? 2_000 : 6_000,
    /**
     * Pairs per worker count: the report takes their median. A pair's ratio moves ±3 % from run
     * to run on this machine; five pairs keep one slow pair from deciding the verdict.
     */
    dropRounds: quick ? 1 : 5,
    /**
     * 10. The local drop against the direct import through DynamoDB Local on disk, as `npm start`
     * runs it: one file, pairs. An import of 3,000 records takes 20 s to over a minute there (every
     * write waits on its SQLite file's sync), so the pairs stop once the next would end past
     * `dropDiskSeconds` (at least `min` of them, so that both orders are there).
     */
    dropDiskRecords: quick ? 500 : 3_000,
    dropDiskPairs: { min: quick ? 1 : 2, max: quick ? 1 : 5 },
    dropDiskSeconds: quick ? 60 : 330,
    /**
     * 11. One WritePart on one core: a generated file whose first part is a whole 8 MiB part
     * (about 9,800 records), planned, checked and written step by step, each step in a child held
     * to one core; repetitions, each into a fresh table, after a discarded one.
     */
    writePartFileRecords: 12_000,
    writePartRuns: quick ? 1 : 5,
    /** The soak: both routes, mixed, through the gateway; bounded in time and in requests. */
    soakSeconds: quick ? 10 : 60,
    soakConnections: 16,
    soakMaxRequests: 200_000,
    /** Reads during a re-import: transactions switched between 20 and 8 lines, import runs, readers. */
    reimportRecords: quick ? 200 : 1000,
    reimportRounds: quick ? 2 : 4,
    reimportReaders: 8,
  };
}
export type BenchConfig = ReturnType<typeof benchConfig>;

/**
 * `--quick` and `--only=cold,warm` from the command line; `partial` when some sections only run
 * (their report then goes to bench/.work/, not over the full run's bench/RESULTS.md).
 */
export function parseArgs(args: readonly string[]) {
  const quick = args.includes('--quick');
  const only = args
    .find((a) => a.startsWith('--only='))
    ?.slice(7)
    .split(',');
  const unknown = only?.filter((name) => !(SECTIONS as readonly string[]).includes(name)) ?? [];
  if (unknown.length > 0)
    throw new Error(`--only: no section ${unknown.join(', ')} (sections: ${SECTIONS.join(', ')})`);
  const enabled = (section: Section) => !only || only.includes(section);
  return { quick, enabled, partial: only !== undefined };
}

export const log = (message: string) =>
  process.stderr.write(`[bench ${process.uptime().toFixed(0).padStart(3)} s] ${message}\n`);
