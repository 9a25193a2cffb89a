import type { Paired } from '../rounds.ts';
/** How the report writes figures, and its markdown tables. */

/** One row of the budgets table: what, the measured figure, whether it holds. */
export type BudgetRow = (string | number)[];

/** A section's part of the report: its budget rows and its markdown lines. */
export interface ReportPart {
  budgets: BudgetRow[];
  lines: string[];
}

export const ms = (n: number) => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));
export const x = (n: number) => `${n.toFixed(3)}×`;
/** A paired ratio with the range of its blocks' medians (bench/rounds.ts). */
export const paired = (p: Paired) =>
  `${x(p.ratio)} (${x(p.low)}–${x(p.high)} over ${p.blocks} blocks)`;
export const kib = (n: number) => (n / 1024).toFixed(1);
export const yes = (ok: boolean) => (ok ? '**yes**' : '**no**');

export function table(head: string[], rows: (string | number)[][]): string {
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}
