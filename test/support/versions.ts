/**
 * Two versions of the same records, differing in head and in children (count and ids), and a
 * check that a GET returned one of them whole: what SPEC 6.1 promises while imports run.
 */
import { currencyLine, customer, line, riskAssessment, transaction } from '../fixtures.ts';

export type Version = 'A' | 'B';

/** Children ids per version, deliberately unsorted; B drops most of A's and adds others. */
const LINES: Record<Version, number[]> = {
  A: [12, 3, 1, 7, 2, 11, 4, 10, 5, 9, 6, 8],
  B: [25, 3, 21, 24, 20],
};
const ASSESSMENTS: Record<Version, number[]> = { A: [6, 1, 5, 2, 4, 3], B: [10, 2, 9] };
const TOTAL: Record<Version, string> = { A: '1.00', B: '2.00' };

export function transactionLine(id: number, v: Version): string {
  return line(
    'transaction',
    transaction({
      id,
      total_amount: TOTAL[v],
      branch: { id: 1, name: `Branch ${v}`, address: '1 Test Street' },
      transaction_currencies: LINES[v].map((lineId) => ({
        ...currencyLine(lineId),
        receive_amount: TOTAL[v],
      })),
    }),
  );
}

export function customerLine(id: number, v: Version): string {
  return line(
    'customer',
    customer({
      id,
      first_name: `Name${v}`,
      customer_risk_assessments: ASSESSMENTS[v].map((assessmentId) =>
        riskAssessment(id, assessmentId, v),
      ),
    }),
  );
}

export const range = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => from + i);

/** The records of an A/B test: transactions and customers, and transactions written in A and deleted in B. */
type Entity = 'transaction' | 'customer';

export interface RecordSet {
  txns: number[];
  custs: number[];
  deleted: number[];
}

/** The import lines of version `v` of a record set. */
export function versionLines({ txns, custs, deleted }: RecordSet, v: Version): string[] {
  return [
    ...txns.map((id) => transactionLine(id, v)),
    ...custs.map((id) => customerLine(id, v)),
    ...deleted.map((id) =>
      v === 'A' ? transactionLine(id, 'A') : JSON.stringify({ delete: { transaction: id } }),
    ),
  ];
}

/** Every record of a set, to read back. */
export function targetsOf({ txns, custs, deleted }: RecordSet): [Entity, number][] {
  return [
    ...txns.map((id): [Entity, number] => ['transaction', id]),
    ...custs.map((id): [Entity, number] => ['customer', id]),
    ...deleted.map((id): [Entity, number] => ['transaction', id]),
  ];
}

const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b).map(BigInt);
const same = (a: unknown[], b: unknown[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** Which version a GET's data is, whole; undefined for a mix of the two (a torn read). */
export function versionOf(
  entity: 'transaction' | 'customer',
  data: Record<string, unknown>,
): Version | undefined {
  if (entity === 'transaction') {
    const lines = data.transaction_currencies as { id: bigint; receive_amount: string }[];
    const v = data.total_amount === '1.00' ? 'A' : data.total_amount === '2.00' ? 'B' : undefined;
    if (!v) return undefined;
    const whole =
      (data.branch as { name: string }).name === `Branch ${v}` &&
      same(
        lines.map((l) => l.id),
        sorted(LINES[v]),
      ) &&
      lines.every((l) => l.receive_amount === TOTAL[v]);
    return whole ? v : undefined;
  }
  const list = data.customer_risk_assessments as { id: bigint; value: string }[];
  const v = data.first_name === 'NameA' ? 'A' : data.first_name === 'NameB' ? 'B' : undefined;
  if (!v) return undefined;
  const whole =
    same(
      list.map((a) => a.id),
      sorted(ASSESSMENTS[v]),
    ) && list.every((a) => a.value === v);
  return whole ? v : undefined;
}
