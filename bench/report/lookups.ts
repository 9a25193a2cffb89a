/**
 * 3b. Lookups, warm: each lookup's handler against the stock client sending the same requests
 * (the raw Query of the same index with the access-state UpdateItem, together; the second
 * UpdateItem for a page of more), and what that second request costs.
 */
import type { Results } from '../results.ts';
import { BUDGETS } from './budgets.ts';
import { warmCells } from './warm.ts';
import { type BudgetRow, ms, type ReportPart, table, x, yes } from './format.ts';

export function renderLookups(r: Results): ReportPart | undefined {
  if (!r.lookups) return undefined;
  const budgets: BudgetRow[] = [];
  const entries = Object.entries(r.lookups);
  const rows = entries.map(([name, w]) => {
    const ratio = w.handler.p50 / w.reference.p50;
    budgets.push([
      `Warm p50, lookup ${name}: ≤ ${BUDGETS.lookupP50}× the stock client's raw Query of the same index + access-state UpdateItem, sent together${w.summaries > 1 ? ', then the UpdateItem counting the rest' : ''}`,
      x(ratio),
      yes(ratio <= BUDGETS.lookupP50),
    ]);
    return [
      name,
      w.summaries,
      w.summaries > 1 ? 'UpdateItem + Query, then UpdateItem' : 'UpdateItem + Query',
      ...warmCells(w),
    ];
  });
  const second = entries.flatMap(([name, w]) =>
    w.oneRoundTrip
      ? [
          [
            name,
            ms(w.reference.p50),
            ms(w.oneRoundTrip.latency.p50),
            ((w.reference.p50 - w.oneRoundTrip.latency.p50) * 1000).toFixed(0),
            x(w.reference.p50 / w.oneRoundTrip.latency.p50),
            x(w.handler.p50 / w.oneRoundTrip.latency.p50),
            (w.cpuMicros.reference - w.oneRoundTrip.cpuMicros).toFixed(0),
          ],
        ]
      : [],
  );
  const n = entries[0]?.[1].handler.n ?? 0;
  const lines = [
    '',
    '## 3b. Lookups, warm',
    '',
    `Each lookup (SPEC 10) through its function's production bundle, in-process, ${n} times after ${r.config.warmWarmup} unmeasured invocations, alternating with the stock Document Client of \`ReferenceRead\` sending it as the lookup does (bench/reference-read.ts \`lookup\`): the raw Query (lib-dynamodb QueryCommand) of the same index with the same key condition, order and Limit, and the raw access-state UpdateItem, concurrently with Promise.all; then, when the page holds more than one item, the raw UpdateItem that counts the rest of it (functions/shared/access.ts \`grant.more\`). The records are the bench seed's (bench/cases.ts), imported by the direct import, which writes their index keys. Both sides are checked to return the whole page. Columns as in section 3.`,
    '',
    table(
      [
        'Lookup',
        'Summaries',
        'Requests (both sides)',
        'Handler p50 ms',
        'Handler p99 ms',
        'Reference p50 ms',
        'Reference p99 ms',
        'p50 ratio',
        'p99 ratio',
        'p50 overhead µs',
        'CPU µs per handler call',
        'CPU µs per reference call',
        'CPU ratio',
      ],
      rows,
    ),
  ];
  if (second.length > 0)
    lines.push(
      '',
      "What the second UpdateItem costs: the same reference without it (its one round trip: the Query and the first UpdateItem), measured in turn with the other two; the handler's p50 over it is what the lookup costs against a page read in one round trip.",
      '',
      table(
        [
          'Lookup',
          'Reference p50 ms',
          'Without the second UpdateItem p50 ms',
          'Second UpdateItem µs (p50)',
          'Ratio',
          'Handler over one round trip (p50)',
          'Second UpdateItem CPU µs',
        ],
        second,
      ),
    );
  return { budgets, lines };
}
