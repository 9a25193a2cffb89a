/** 3. Warm overhead: the handler against a raw Query in the same process. */
import type { Results } from '../results';
import { BUDGETS } from './budgets';
import { type BudgetRow, ms, type ReportPart, table, x, yes } from './format';

export function renderWarm(r: Results): ReportPart | undefined {
  if (!r.warm) return undefined;
  const budgets: BudgetRow[] = [];
  const lines: string[] = [];
  const rows = Object.entries(r.warm).map(([name, w]) => {
    const ratio = w.handler.p50 / w.query.p50;
    budgets.push([
      `Warm p50, ${name}: ≤ ${BUDGETS.warmP50}× the raw Query`,
      x(ratio),
      yes(ratio <= BUDGETS.warmP50),
    ]);
    return [
      name,
      ms(w.handler.p50),
      ms(w.handler.p99),
      ms(w.query.p50),
      ms(w.query.p99),
      x(ratio),
      x(w.handler.p99 / w.query.p99),
      ((w.handler.p50 - w.query.p50) * 1000).toFixed(0),
      w.cpuMicros.handler.toFixed(0),
      w.cpuMicros.query.toFixed(0),
      x(w.cpuMicros.handler / w.cpuMicros.query),
    ];
  });
  const n = Object.values(r.warm)[0]?.handler.n ?? 0;
  lines.push(
    '',
    '## 3. Warm overhead',
    '',
    `The production handler (its bundle) invoked in-process for the same record again and again, ${n} times after ${r.config.warmWarmup} unmeasured invocations, alternating with a raw QueryCommand of the same item collection in the same process (the reference bundle's client), against DynamoDB Local. The functions' log lines go to a file. CPU: the process's user + system time per call (process.cpuUsage), which other work on the machine does not inflate as much as wall time.`,
    '',
    table(
      [
        'Case',
        'Handler p50 ms',
        'Handler p99 ms',
        'Raw Query p50 ms',
        'Raw Query p99 ms',
        'p50 ratio',
        'p99 ratio',
        'p50 overhead µs',
        'CPU µs per handler call',
        'CPU µs per raw Query',
        'CPU ratio',
      ],
      rows,
    ),
  );
  return { budgets, lines };
}
