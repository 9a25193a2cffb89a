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
    `${k.readers} readers GET (getCollection, as the functions do, its DynamoDB requests counted) ${k.records} transactions while \`bin/import.ts\` replaces them ${k.rounds} times, 20 currency lines <-> 8, in DynamoDB Local. A GET needs a second, consistent read only when its Query saw fewer children of the head's version than the head counts (SPEC 6.1, docs/architecture.md). Torn = total and line count from different imports.`,
    '',
    table(
      [
        'GETs',
        'Needed a 2nd read',
        'Most requests in one GET',
        'Torn',
        'Failed',
        'p50 ms, one read',
        'p99 ms, one read',
        'p50 ms, 2+ reads',
        'p99 ms, 2+ reads',
        'Import records/s meanwhile',
      ],
      [
        [
          k.gets,
          `${k.multiRead} (${((100 * k.multiRead) / k.gets).toFixed(2)} %)`,
          k.maxRequests,
          k.torn,
          k.failed,
          ms(k.single.p50),
          ms(k.single.p99),
          k.multi ? ms(k.multi.p50) : '-',
          k.multi ? ms(k.multi.p99) : '-',
          k.recordsPerSecond.toFixed(0),
        ],
      ],
    ),
  );
  return { budgets, lines };
}
