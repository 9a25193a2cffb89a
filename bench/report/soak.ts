/** 7. Soak: errors and memory over a long mixed run. */
import type { Results } from '../results.ts';
import { BUDGETS } from './budgets.ts';
import { type BudgetRow, type ReportPart, table, x, yes } from './format.ts';

export function renderSoak(r: Results): ReportPart | undefined {
  if (!r.soak) return undefined;
  const budgets: BudgetRow[] = [];
  const lines: string[] = [];
  const k = r.soak;
  const growth = k.rssLastQuarterMiB / k.rssFirstQuarterMiB;
  budgets.push(['Soak: zero errors', k.errors, yes(k.errors === 0)]);
  budgets.push([
    `Soak: memory stable, RSS last quarter ≤ ${BUDGETS.soakMemory}× second quarter (after warm-up)`,
    x(growth),
    yes(growth <= BUDGETS.soakMemory),
  ]);
  lines.push(
    '',
    '## 7. Soak',
    '',
    `Both routes mixed (a 1-line and a 50-line transaction, a customer) through the local gateway with valid tokens, ${k.connections} connections, bounded by ${r.config.soakSeconds} s and ${r.config.soakMaxRequests} requests, loopback only. RSS of the process holding the gateway, the functions, the local Cognito and S3 (DynamoDB Local is its own JVM) sampled every second.`,
    '',
    table(
      [
        'Seconds',
        'Requests',
        'Requests/s',
        'p50 ms',
        'p99 ms',
        'Errors',
        'RSS 2nd quarter MiB',
        'RSS last quarter MiB',
        'Ratio',
        'RSS max MiB',
      ],
      [
        [
          k.seconds.toFixed(0),
          k.requests,
          k.requestsPerSecond.toFixed(0),
          k.p50,
          k.p99,
          k.errors,
          k.rssFirstQuarterMiB.toFixed(0),
          k.rssLastQuarterMiB.toFixed(0),
          x(growth),
          k.rssMaxMiB.toFixed(0),
        ],
      ],
    ),
  );
  return { budgets, lines };
}
