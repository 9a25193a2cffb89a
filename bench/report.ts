/**
 * bench/RESULTS.md from the figures of one run: the machine, the budgets table (each section's
 * rows, in section order), then each section's part (bench/report/*.ts, one renderer each).
 */
import { budgetsTable } from './report/budgets.ts';
import { renderBreakdown } from './report/breakdown.ts';
import { renderCold } from './report/cold.ts';
import { renderAccessHistory, renderCost } from './report/cost.ts';
import { renderDrop } from './report/drop.ts';
import { renderDropDisk } from './report/drop-disk.ts';
import { renderFirst } from './report/first.ts';
import type { ReportPart } from './report/format.ts';
import { renderImport } from './report/import.ts';
import { renderLookups } from './report/lookups.ts';
import { renderMachine } from './report/machine.ts';
import { renderReimport } from './report/reimport.ts';
import { renderSoak } from './report/soak.ts';
import { renderThroughput } from './report/throughput.ts';
import { renderWarm } from './report/warm.ts';
import { renderWritePart } from './report/write-part.ts';
import type { Results } from './results.ts';

export { BUDGETS } from './report/budgets.ts';

/** In the order they appear (the numbers in their headings). */
const SECTIONS: ((r: Results) => ReportPart | undefined)[] = [
  renderCold,
  renderFirst,
  renderWarm,
  renderBreakdown,
  renderLookups,
  renderThroughput,
  renderCost,
  renderAccessHistory,
  renderImport,
  renderSoak,
  renderReimport,
  renderDrop,
  renderDropDisk,
  renderWritePart,
];

export function writeReport(r: Results): string {
  const parts = SECTIONS.map((render) => render(r)).filter((p) => p !== undefined);
  return [
    ...renderMachine(r),
    ...budgetsTable(parts.flatMap((p) => p.budgets)),
    ...parts.flatMap((p) => p.lines),
    '',
  ].join('\n');
}
