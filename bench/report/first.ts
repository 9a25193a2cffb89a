/** 2. Cold start: process start to first response. */
import { CDK_DEFAULT, isDeployed, REFERENCE } from '../bundle-names.ts';
import type { Results } from '../results.ts';
import { BUDGETS } from './budgets.ts';
import { type BudgetRow, ms, paired, type ReportPart, table, x, yes } from './format.ts';

export function renderFirst(r: Results): ReportPart | undefined {
  if (!r.first) return undefined;
  const budgets: BudgetRow[] = [];
  const lines: string[] = [];
  const ref = r.first[REFERENCE]!;
  for (const [name, f] of Object.entries(r.first).filter(([n]) => isDeployed(n)))
    budgets.push([
      `${name}: process start → first response ≤ ${BUDGETS.firstResponse}× the stock floor`,
      paired(f.paired.respondedAt),
      yes(f.paired.respondedAt.ratio <= BUDGETS.firstResponse),
    ]);
  lines.push(
    '',
    '## 2. Cold start: process start → first response',
    '',
    `Time from process start to the first response of each handler, in a fresh process against DynamoDB Local reached over TLS as DynamoDB is in AWS (bench/tls-proxy.ts; records imported first), against the stock floor doing its one Query (of transaction 1's item collection; the floor is unchanged, while a handler's GET sends two requests together, the record's GetItem and the access-state UpdateItem, so its first request opens two connections, and runs with the stage's environment, the zone's offsets included); the variants answer the Transactions function's GET. ${ref.respondedAt.n} rounds, order rotated every round, after two unmeasured rounds; ratios paired as above, with the range of their blocks' medians.`,
    '',
    table(
      [
        'Bundle',
        'Start→response p50 ms',
        'p90 ms',
        'Ratio (paired)',
        'Of which the request p50 ms',
        'Ratio (p50)',
      ],
      Object.entries(r.first).map(([name, f]) => [
        name,
        ms(f.respondedAt.p50),
        ms(f.respondedAt.p90),
        paired(f.paired.respondedAt),
        ms(f.requestMs.p50),
        x(f.requestMs.p50 / ref.requestMs.p50),
      ]),
    ),
  );
  const cdk = r.first[CDK_DEFAULT];
  const ours = r.first.Transactions;
  if (cdk && ours)
    lines.push(
      '',
      `**Against a default CDK function:** The Transactions function answers its first request ${(cdk.paired.respondedAt.ratio / ours.paired.respondedAt.ratio).toFixed(2)}× as fast as the same code built as a default \`NodejsFunction\` (start→response ${ms(ours.respondedAt.p50)} ms against ${ms(cdk.respondedAt.p50)} ms, p50).`,
    );
  return { budgets, lines };
}
