/** 4. Throughput through the local gateway. */
import type { Results } from '../results.ts';
import { type BudgetRow, type ReportPart, table, x, yes } from './format.ts';

/** The reference target's name: what it sends (bench/reference-read.ts). */
export const THROUGHPUT_REFERENCE = 'reference (raw GetItem + access-state UpdateItem, together)';

export function renderThroughput(r: Results): ReportPart | undefined {
  if (!r.throughput) return undefined;
  const budgets: BudgetRow[] = [];
  const lines: string[] = [];
  const refName = THROUGHPUT_REFERENCE;
  const refAt = (c: number) =>
    r.throughput!.find((t) => t.target === refName && t.connections === c);
  const errors = r.throughput.reduce((a, t) => a + t.errors, 0);
  budgets.push([
    'Throughput runs: zero errors (non-2xx, timeouts, socket errors)',
    String(errors),
    yes(errors === 0),
  ]);
  lines.push(
    '',
    '## 4. Throughput through the local gateway',
    '',
    `autocannon against the local API Gateway stand-in (local/gateway/gateway.ts: JWT authorizer, payload 2.0 events) on 127.0.0.1, the routes served by the production bundles, \`GET /reference/{pk}\` by the warm reference bundle \`ReferenceRead\` behind the same authorizer (bench/reference-read.ts: the stock Document Client sending the raw GetItem of the record's item and the raw access-state UpdateItem concurrently, as a GET sends them; the caller's access state under a \`reference:\` prefix, an item of its own); the functions run with the read budgets at 100,000 per 30 s window (as a stage sets them), so no request meets a 429 (it would count as an error); at each level ${r.config.throughputRounds} runs of ${r.config.durationSeconds} s per target, interleaved, after a ${r.config.warmupSeconds} s warm-up of each. Latency: median of the runs' p50, highest of their p99, in whole ms as autocannon reports them. Load generator, gateway and DynamoDB Local share this machine's cores. Errors count non-2xx answers, timeouts and socket errors.`,
    '',
    table(
      [
        'Target',
        'Connections',
        'Requests/s',
        'Ratio to reference',
        'p50 ms',
        'p99 ms',
        'Requests',
        'Errors',
      ],
      r.throughput.map((t) => [
        t.target,
        t.connections,
        t.requestsPerSecond.toFixed(0),
        x(t.requestsPerSecond / (refAt(t.connections)?.requestsPerSecond ?? Number.NaN)),
        t.p50,
        t.p99,
        t.requests,
        t.errors,
      ]),
    ),
  );
  return { budgets, lines };
}
