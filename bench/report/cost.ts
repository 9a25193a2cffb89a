/** 5. DynamoDB cost per GET, and 5b. the access state over the years. */
import type { Results } from '../results.ts';
import type { History } from '../sections/access-history.ts';
import { type BudgetRow, type ReportPart, ms, table, yes } from './format.ts';

type Cost = NonNullable<Results['cost']>[string];

export function renderCost(r: Results): ReportPart | undefined {
  if (!r.cost) return undefined;
  const budgets: BudgetRow[] = [];
  const lines: string[] = [];
  // SPEC 6.1: one round trip per GET, the record's GetItem and the access-state UpdateItem sent
  // together: one of each per GET, and the two in flight at once.
  const perGet = (c: Cost, op: string) => (c.operations[op] ?? 0) / c.gets;
  const cases = Object.values(r.cost);
  budgets.push([
    "One DynamoDB round trip per GET: the record's GetItem and the access-state UpdateItem, sent together",
    Object.entries(r.cost)
      .map(
        ([name, c]) =>
          `${name}: GetItem ${perGet(c, 'GetItem').toFixed(2)} + UpdateItem ${perGet(c, 'UpdateItem').toFixed(2)} per GET, ${c.overlappedGets}/${c.gets} overlapped`,
      )
      .join('; '),
    yes(
      cases.every(
        (c) =>
          c.requests === 2 * c.gets &&
          perGet(c, 'GetItem') === 1 &&
          perGet(c, 'UpdateItem') === 1 &&
          c.overlappedGets === c.gets,
      ),
    ),
  ]);
  lines.push(
    '',
    '## 5. DynamoDB cost per GET',
    '',
    `Requests counted by an HTTP proxy between the production handler and DynamoDB Local, ${r.config.repeat} GETs one after another per case. A GET is one round trip (SPEC 6.1): the record's GetItem (the record is one item) and the caller's access-state UpdateItem, sent together; overlapped counts the GETs whose second request reached the proxy before the answer to the first was handed back (the proxy holds each answer until both of a GET's requests have arrived, 250 ms at most: requests sent together overlap however busy the machine is, a request sent only after the other's answer never does). The GetItem and the UpdateItem the handler sent are then sent again with \`ReturnConsumedCapacity: TOTAL\` (read and write capacity units; the reference's Query of the same item collection likewise).`,
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
        'GetItem RCU',
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

/** 5b's table: each read-budget store after a year of one user's sporadic reads. */
export function renderHistory(h: History): string[] {
  return [
    `One user's year of sporadic reads (${h.gets} GETs, bench/sporadic-reads.ts) in ${h.windowSeconds} s windows against DynamoDB Local, the access-state requests counted with the units DynamoDB reports (\`ReturnConsumedCapacity\`); then one more GET of that user and the first GET of a new one. DynamoDB Local never expires items by TTL.`,
    '',
    table(
      [
        'Read-budget store',
        'Access requests per GET',
        'Second round trips per GET',
        'WCU: new user / after a year',
        'RCU: new user / after a year',
        'Bytes stored for the user after a year',
        'ms of the access requests: first 200 / last 200 GETs',
      ],
      h.rows.map((r) => [
        r.candidate,
        r.requestsPerGet.toFixed(3),
        r.secondRoundTripsPerGet.toFixed(3),
        `${r.writeUnits.newUser} / ${r.writeUnits.afterYear}`,
        `${r.readUnits.newUser} / ${r.readUnits.afterYear}`,
        r.storedBytes,
        `${ms(r.ms.first)} / ${ms(r.ms.last)}`,
      ]),
    ),
  ];
}

export function renderAccessHistory(r: Results): ReportPart | undefined {
  const h = r.accessHistory;
  if (!h) return undefined;
  const same = h.rows.every(
    (row) =>
      row.writeUnits.newUser === row.writeUnits.afterYear &&
      row.readUnits.newUser === row.readUnits.afterYear,
  );
  return {
    budgets: [
      [
        "A GET on a user with a year of history costs a new user's write and read units (the access state)",
        h.rows
          .map(
            (row) =>
              `WCU ${row.writeUnits.newUser} / ${row.writeUnits.afterYear}, RCU ${row.readUnits.newUser} / ${row.readUnits.afterYear}, ${row.storedBytes} bytes stored`,
          )
          .join('; '),
        yes(same),
      ],
    ],
    lines: ['', '## 5b. The access state over the years', '', ...renderHistory(h)],
  };
}
