/** 8. Reads during a re-import. */
import type { Results } from '../results.ts';
import { type BudgetRow, ms, type ReportPart, table, yes } from './format.ts';

export function renderReimport(r: Results): ReportPart | undefined {
  if (!r.reimport) return undefined;
  const budgets: BudgetRow[] = [];
  const lines: string[] = [];
  const k = r.reimport;
  budgets.push([
    'Reads during a re-import: none torn, none failed',
    k.torn + k.failed,
    yes(k.torn + k.failed === 0),
  ]);
  lines.push(
    '',
    '## 8. Reads during a re-import',
    '',
    `${k.readers} readers GET (readRecord, as the functions do: one GetItem) ${k.records} transactions while the direct import replaces them ${k.rounds} times, 20 currency lines <-> 8, in DynamoDB Local. Torn = total and line count from different imports.`,
    '',
    table(
      ['GETs', 'Torn', 'Failed', 'p50 ms', 'p99 ms', 'Import records/s meanwhile'],
      [
        [
          k.gets,
          k.torn,
          k.failed,
          ms(k.latency.p50),
          ms(k.latency.p99),
          k.recordsPerSecond.toFixed(0),
        ],
      ],
    ),
  );
  return { budgets, lines };
}
