/** 6. Import: rate and memory by file size. */
import type { Results } from '../results.ts';
import { BUDGETS } from './budgets.ts';
import { type BudgetRow, type ReportPart, table, x, yes } from './format.ts';

export function renderImport(r: Results): ReportPart | undefined {
  if (!r.import?.length) return undefined;
  const budgets: BudgetRow[] = [];
  const lines: string[] = [];
  const base = r.import[0]!;
  const last = r.import.at(-1)!;
  const memory = last.maxRssMiB / base.maxRssMiB;
  budgets.push([
    `Import memory flat: peak RSS at ${last.records} records ≤ ${BUDGETS.importMemory}× at ${base.records}`,
    x(memory),
    yes(memory <= BUDGETS.importMemory),
  ]);
  lines.push(
    '',
    '## 6. Import',
    '',
    "The direct import (`local/tools/direct-import.ts`: the validation and writing code of the drop's steps, straight into a table) in a child process importing generated records (four transactions with 1 to 3 currency lines to one customer with 1 or 2 risk assessments) into a fresh table of DynamoDB Local, which runs on the same cores. Peak RSS is the child's own maxRSS at exit; RSS is also sampled every 200 ms. CPU seconds (user + system) of the import process and of DynamoDB Local's JVM over the import tell which one bounds the rate: on 2 cores, the two together near 2 × the wall time means the machine is saturated.",
    '',
    table(
      [
        'Records',
        'File MiB',
        'Seconds',
        'Records/s',
        'Ratio',
        'Import CPU s',
        'DynamoDB Local CPU s',
        'Peak RSS MiB',
        'Ratio',
        'RSS median, 1st half MiB',
        '2nd half MiB',
      ],
      r.import.map((i) => [
        i.records,
        (i.fileBytes / 2 ** 20).toFixed(1),
        i.seconds.toFixed(1),
        i.recordsPerSecond.toFixed(0),
        x(i.recordsPerSecond / base.recordsPerSecond),
        i.cpuSeconds.toFixed(1),
        i.dynamoCpuSeconds.toFixed(1),
        i.maxRssMiB.toFixed(0),
        x(i.maxRssMiB / base.maxRssMiB),
        i.rssFirstHalfMedianMiB.toFixed(0),
        i.rssSecondHalfMedianMiB.toFixed(0),
      ]),
    ),
  );
  return { budgets, lines };
}
