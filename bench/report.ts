/**
 * bench/RESULTS.md from the figures of one run: the machine, the budgets table (each section's
 * rows, in section order), then each section's part (bench/report/*.ts, one renderer each).
 */
import { budgetsTable } from './report/budgets';
import { renderBreakdown } from './report/breakdown';
import { renderCold } from './report/cold';
import { renderAccessHistory, renderCost } from './report/cost';
import { renderDrop } from './report/drop';
import { renderDropDisk } from './report/drop-disk';
import { renderFirst } from './report/first';
import type { ReportPart } from './report/format';
import { renderImport } from './report/import';
import { renderMachine } from './report/machine';
import { renderReimport } from './report/reimport';
import { renderSoak } from './report/soak';
import { renderThroughput } from './report/throughput';
import { renderWarm } from './report/warm';
import { renderWritePart } from './report/write-part';
import type { Results } from './results';

export { BUDGETS } from './report/budgets';

/** In the order they appear (the numbers in their headings). */
const SECTIONS: ((r: Results) => ReportPart | undefined)[] = [
  renderCold,
  renderFirst,
  renderWarm,
  renderBreakdown,
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
