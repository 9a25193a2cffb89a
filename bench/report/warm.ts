/**
 * 3. Warm overhead: the handler against the stock client sending the same requests (the raw GetItem
 * and the raw access-state UpdateItem, together) in the same process.
 */
import type { Results } from '../results.ts';
import { BUDGETS } from './budgets.ts';
import { type BudgetRow, ms, type ReportPart, table, x, yes } from './format.ts';

/** A warm case's figures against its reference, as sections 3 and 3b both show them. */
type WarmFigures = NonNullable<Results['warm']>[string];

/** p50 and p99 of both, their ratios, the p50 overhead in µs, CPU per call of both and their ratio. */
export function warmCells(w: Pick<WarmFigures, 'handler' | 'reference' | 'cpuMicros'>): string[] {
  return [
    ms(w.handler.p50),
    ms(w.handler.p99),
    ms(w.reference.p50),
    ms(w.reference.p99),
    x(w.handler.p50 / w.reference.p50),
    x(w.handler.p99 / w.reference.p99),
    ((w.handler.p50 - w.reference.p50) * 1000).toFixed(0),
    w.cpuMicros.handler.toFixed(0),
    w.cpuMicros.reference.toFixed(0),
    x(w.cpuMicros.handler / w.cpuMicros.reference),
  ];
}

export function renderWarm(r: Results): ReportPart | undefined {
  if (!r.warm) return undefined;
  const budgets: BudgetRow[] = [];
  const lines: string[] = [];
  const rows = Object.entries(r.warm).map(([name, w]) => {
    const ratio = w.handler.p50 / w.reference.p50;
    budgets.push([
      `Warm p50, ${name}: ≤ ${BUDGETS.warmP50}× the stock client's raw GetItem + access-state UpdateItem, sent together`,
      x(ratio),
      yes(ratio <= BUDGETS.warmP50),
    ]);
    return [name, ...warmCells(w)];
  });
  const n = Object.values(r.warm)[0]?.handler.n ?? 0;
  lines.push(
    '',
    '## 3. Warm overhead',
    '',
    `The production handler (its bundle) invoked in-process for the same record again and again, ${n} times after ${r.config.warmWarmup} unmeasured invocations, alternating in the same process with the warm reference \`ReferenceRead\` (bench/reference-read.ts): the stock Document Client of the floor sending the same two requests a GET sends, the raw GetItem (lib-dynamodb GetCommand) of the same record and the raw access-state UpdateItem (lib-dynamodb UpdateCommand, the expression of functions/shared/access.ts, its own caller's item, budget 100,000), concurrently with Promise.all, against DynamoDB Local. The functions run with the read budgets at 100,000 (as a stage sets them), so no measured GET meets a 429. The functions' log lines go to a file. CPU: the process's user + system time per call (process.cpuUsage), which other work on the machine does not inflate as much as wall time.`,
    '',
    table(
      [
        'Case',
        'Handler p50 ms',
        'Handler p99 ms',
        'Reference (GetItem + UpdateItem) p50 ms',
        'Reference p99 ms',
        'p50 ratio',
        'p99 ratio',
        'p50 overhead µs',
        'CPU µs per handler call',
        'CPU µs per reference read',
        'CPU ratio',
      ],
      rows,
    ),
  );
  return { budgets, lines };
}
