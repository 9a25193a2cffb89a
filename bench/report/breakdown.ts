/** 3, continued: where a warm GET's own time goes. */
import type { Results } from '../results.ts';
import { type BudgetRow, type ReportPart, table } from './format.ts';

export function renderBreakdown(r: Results): ReportPart | undefined {
  if (!r.breakdown) return undefined;
  const budgets: BudgetRow[] = [];
  const lines: string[] = [];
  const cases = Object.keys(r.breakdown);
  const steps = Object.keys(r.breakdown[cases[0]!]!);
  lines.push(
    '',
    "Where a warm GET's own time goes, on an otherwise idle event loop (bench/children/breakdown.ts: the source modules as Node.js strips their types, DynamoDB stubbed out, each step timed on its own), µs per call:",
    '',
    table(
      ['Step', ...cases],
      steps.map((step) => [step, ...cases.map((c) => r.breakdown![c]![step]!.toFixed(1))]),
    ),
  );
  return { budgets, lines };
}
