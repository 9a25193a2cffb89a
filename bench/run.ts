/**
 * `npm run bench`: the performance benchmark (docs/performance.md says what each section measures
 * and how to read the figures; bench/README.md maps the files). Every figure is a ratio to a
 * reference measured side by side in the same run; the results go to bench/RESULTS.md (and
 * bench/.work/results.json). Scratch files go under bench/.work/.
 *
 * Options: `--only=cold,first,warm,cost,throughput,soak,import,reimport,drop,drop-disk,write-part`
 * runs some sections, and writes their report to bench/.work/RESULTS.md: bench/RESULTS.md stays
 * the last full run's, every section's figures from one run; `--quick` runs fewer repetitions and
 * a smaller import (a smoke test, not figures to quote).
 *
 * This file only orchestrates: each section measures in bench/sections/, bench/report.ts renders.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../core/project-root.ts';
import { functionList } from '../core/routes.ts';
import { CDK_DEFAULT, REFERENCE, WITH_SOURCE_MAPS } from './bundle-names.ts';
import { buildBundles } from './bundles.ts';
import { benchConfig, log, parseArgs, WORK, type Section } from './config.ts';
import { machine } from './machine.ts';
import { buildInvokeScript, Processes } from './processes.ts';
import { writeReport } from './report.ts';
import type { Results } from './results.ts';
import type { BenchRun } from './sections/bench-run.ts';
import { measureCold } from './sections/cold.ts';
import { CHOSEN, measureAccessHistory } from './sections/access-history.ts';
import { measureCost } from './sections/cost.ts';
import { measureDrop } from './sections/drop.ts';
import { measureDropDisk } from './sections/drop-disk.ts';
import { measureFirst } from './sections/first.ts';
import { measureImport } from './sections/import.ts';
import { measureReimport } from './sections/reimport.ts';
import { measureSoak } from './sections/soak.ts';
import { startBenchTable } from './sections/table.ts';
import { measureThroughput, warmUpGateway } from './sections/throughput.ts';
import { measureBreakdown, measureWarm } from './sections/warm.ts';
import { measureWritePart } from './sections/write-part.ts';
import { startRigChild } from './rig-child.ts';

type Enabled = (section: Section) => boolean;

/** The bundles and the invoke script built; only what this run writes under bench/.work goes. */
async function prepare(run: Omit<BenchRun, 'invoker' | 'bundle' | 'names'>, results: Results) {
  for (const dir of ['bundles', 'children', 'rig', 'logs'])
    rmSync(join(WORK, dir), { recursive: true, force: true });
  mkdirSync(join(WORK, 'logs'), { recursive: true });
  log('building the production and reference bundles');
  const bundles = await buildBundles(join(WORK, 'bundles'));
  const script = await buildInvokeScript(WORK);
  results.bundles = bundles.map(({ name, bytes, mapBytes }) => ({ name, bytes, mapBytes }));
  return {
    ...run,
    invoker: { processes: run.processes, script, logDir: join(WORK, 'logs') },
    bundle: (name: string) => bundles.find((b) => b.name === name)!,
    names: [REFERENCE, ...functionList.map((fn) => fn.id), WITH_SOURCE_MAPS, CDK_DEFAULT],
  };
}

/** The sections on one DynamoDB Local, stopped after them: the local rig starts its own. */
async function tableSections(run: BenchRun, enabled: Enabled, results: Results) {
  if (
    !(['first', 'warm', 'cost', 'import', 'reimport', 'drop', 'write-part'] as const).some(enabled)
  )
    return;
  const { ddb, stop } = await startBenchTable(run.config, run.processes);
  if (enabled('first')) results.first = await measureFirst(run, ddb.endpoint);
  if (enabled('warm')) {
    const warm = await measureWarm(run, ddb.endpoint);
    results.warm = warm.gets;
    results.lookups = warm.lookups;
    results.breakdown = await measureBreakdown(run.processes);
  }
  if (enabled('cost')) {
    results.cost = await measureCost(run, ddb.endpoint);
    results.accessHistory = await measureAccessHistory(ddb.endpoint, [CHOSEN]);
  }
  if (enabled('import')) results.import = await measureImport(run.config, run.processes, ddb);
  if (enabled('reimport')) results.reimport = await measureReimport(run.config, run.processes, ddb);
  if (enabled('drop')) results.drop = await measureDrop(run.config, run.processes, ddb);
  if (enabled('write-part'))
    results.writePart = await measureWritePart(run.config, run.processes, ddb);
  await stop();
}

/** Throughput and soak through the local rig in its own process; the soak runs for either. */
async function gatewaySections(run: BenchRun, enabled: Enabled, results: Results) {
  if (!enabled('throughput') && !enabled('soak')) return;
  const rig = await startRigChild(run.processes);
  await warmUpGateway(run.config, rig);
  const rates = enabled('throughput') ? await measureThroughput(run.config, rig) : [];
  const soak = await measureSoak(run.config, rig);
  if (enabled('throughput')) results.throughput = rates;
  if (enabled('soak')) results.soak = soak;
}

async function main(processes: Processes): Promise<void> {
  const { quick, enabled, partial } = parseArgs(process.argv.slice(2));
  const config = benchConfig(quick);
  const results: Results = { machine: machine(), config: { ...config, quick } };
  const run = await prepare({ config, processes }, results);
  if (enabled('cold')) results.cold = await measureCold(run);
  await tableSections(run, enabled, results);
  // On its own DynamoDB Local (on disk), after the in-memory one has stopped.
  if (enabled('drop-disk')) results.dropDisk = await measureDropDisk(run.config, run.processes);
  await gatewaySections(run, enabled, results);
  results.machine.loadEnd = loadavg()[0]!;
  writeFileSync(join(WORK, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  // Some sections only: their report beside results.json, not over the full run's.
  const report = partial ? join(WORK, 'RESULTS.md') : join(PROJECT_ROOT, 'bench', 'RESULTS.md');
  writeFileSync(report, writeReport(results));
  log(`done: ${report}`);
}

const processes = new Processes();
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    log(`${signal}: stopping`);
    void processes.cleanup().finally(() => process.exit(130));
  });
try {
  await main(processes);
} finally {
  await processes.cleanup();
}
