/** 5. DynamoDB cost per GET. */
import type { Results } from '../results';
import { type BudgetRow, type ReportPart, table, yes } from './format';

export function renderCost(r: Results): ReportPart | undefined {
  if (!r.cost) return undefined;
  const budgets: BudgetRow[] = [];
  const lines: string[] = [];
  const perGet = Object.values(r.cost).map((c) => c.requests / c.gets);
  budgets.push([
    'DynamoDB requests per GET = 1',
    perGet.map((p) => p.toFixed(2)).join(', '),
    yes(perGet.every((p) => p === 1)),
  ]);
  lines.push(
    '',
    '## 5. DynamoDB cost per GET',
    '',
    "Requests counted by an HTTP proxy between the production handler and DynamoDB Local; the Query the handler sent is then sent again with `ReturnConsumedCapacity: TOTAL` (and the reference's Query of the same item collection likewise).",
    '',
    table(
      [
        'Case',
        'GETs',
        'DynamoDB requests',
        'Per GET',
        'Operations',
        'Items',
        'Consistent read',
        'Read capacity units',
        'Reference RCU',
        'Response bytes',
      ],
      Object.entries(r.cost).map(([name, c]) => [
        name,
        c.gets,
        c.requests,
        (c.requests / c.gets).toFixed(2),
        Object.entries(c.operations)
          .map(([k, v]) => `${k} ${v}`)
          .join(', '),
        c.items,
        c.consistentRead ? 'yes' : 'no (eventually consistent)',
        c.capacityUnits,
        c.referenceCapacityUnits,
        c.responseBytes,
      ]),
    ),
  );
  return { budgets, lines };
}
