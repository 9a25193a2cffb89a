/** 5. DynamoDB cost per GET. */
import type { Results } from '../results';
import { type BudgetRow, type ReportPart, table, yes } from './format';

type Cost = NonNullable<Results['cost']>[string];

export function renderCost(r: Results): ReportPart | undefined {
  if (!r.cost) return undefined;
  const budgets: BudgetRow[] = [];
  const lines: string[] = [];
  // SPEC 6.1: one round trip per GET, the record's Query and the access-state UpdateItem sent
  // together: one of each per GET, and the two in flight at once.
  const perGet = (c: Cost, op: string) => (c.operations[op] ?? 0) / c.gets;
  const cases = Object.values(r.cost);
  budgets.push([
    "One DynamoDB round trip per GET: the record's Query and the access-state UpdateItem, sent together",
    Object.entries(r.cost)
      .map(
        ([name, c]) =>
          `${name}: Query ${perGet(c, 'Query').toFixed(2)} + UpdateItem ${perGet(c, 'UpdateItem').toFixed(2)} per GET, ${c.overlappedGets}/${c.gets} overlapped`,
      )
      .join('; '),
    yes(
      cases.every(
        (c) =>
          c.requests === 2 * c.gets &&
          perGet(c, 'Query') === 1 &&
          perGet(c, 'UpdateItem') === 1 &&
          c.overlappedGets === c.gets,
      ),
    ),
  ]);
  lines.push(
    '',
    '## 5. DynamoDB cost per GET',
    '',
    `Requests counted by an HTTP proxy between the production handler and DynamoDB Local, ${r.config.repeat} GETs one after another per case. A GET is one round trip (SPEC 6.1): the record's Query and the caller's access-state UpdateItem, sent together; overlapped counts the GETs whose second request reached the proxy before the answer to the first was handed back (the proxy holds each answer until both of a GET's requests have arrived, 250 ms at most: requests sent together overlap however busy the machine is, a request sent only after the other's answer never does). The Query and the UpdateItem the handler sent are then sent again with \`ReturnConsumedCapacity: TOTAL\` (read and write capacity units; the reference's Query of the same item collection likewise).`,
    '',
    table(
      [
        'Case',
        'GETs',
        'DynamoDB requests',
        'Per GET',
        'Operations',
        'Overlapped GETs',
        'Items',
        'Consistent read',
        'Query RCU',
        'UpdateItem WCU',
        'Reference Query RCU',
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
        `${c.overlappedGets}/${c.gets}`,
        c.items,
        c.consistentRead ? 'yes' : 'no (eventually consistent)',
        c.capacityUnits,
        c.writeCapacityUnits,
        c.referenceCapacityUnits,
        c.responseBytes,
      ]),
    ),
  );
  return { budgets, lines };
}
