/**
 * What the GET measures read: a small and a large transaction (50 lines) and a customer, as the
 * seed file that imports them and as the events the functions are invoked with.
 */
import { CUSTOMER_READERS_GROUP } from '../core/groups.ts';
import { writeFileSync } from 'node:fs';
import { buildApiEvent } from '../local/gateway/api-event.ts';
import type { Case } from './children/invoke.ts';
import { customerRecord, line, transactionRecord } from './generate.ts';

export const SMALL_TXN = 1;
export const LARGE_TXN = 2;
export const CUSTOMER = 5;

/** The caller of the handlers' events (`sub` claim): the access-state item the GETs count on. */
export const BENCH_SUB = '00000000-0000-0000-0000-000000000000';
/**
 * The warm reference's caller: its own access-state item, so that the reference's UpdateItem
 * and the handler's never count on (or contend for) the same item.
 */
export const REFERENCE_SUB = '00000000-0000-0000-0000-0000000000ff';
/** `iat` of the events' token: whole epoch seconds, as a string, as API Gateway passes claims. */
export const BENCH_IAT = '1735689600';

/** An API Gateway payload 2.0 event as the JWT authorizer hands it over, from a client on AWS. */
export function benchEvent(routeKey: string, pathParameters: Record<string, string>) {
  return buildApiEvent({
    routeKey,
    pathParameters,
    headers: {
      accept: '*/*',
      authorization: 'Bearer eyJ...',
      host: 'api.example.com',
      'user-agent': 'bench',
      'x-forwarded-for': '127.0.0.1',
      'x-forwarded-port': '443',
      'x-forwarded-proto': 'https',
    },
    claims: {
      sub: BENCH_SUB,
      iat: BENCH_IAT,
      username: 'bench',
      token_use: 'access',
      'cognito:groups': `[${CUSTOMER_READERS_GROUP}]`,
      client_id: 'bench',
      scope: 'aws.cognito.signin.user.admin',
    },
    apiId: 'bench',
    requestId: 'bench',
    timeEpoch: 1735689600000,
  });
}

const transactionCase = (name: string, id: number): Case => ({
  name,
  event: benchEvent('GET /transactions/{transaction_id}', { transaction_id: String(id) }),
  pk: `TXN#${id}`,
  referenceSub: REFERENCE_SUB,
});

export const CASES: Record<string, Case> = {
  'transaction (1 line)': transactionCase('transaction (1 line)', SMALL_TXN),
  'transaction (50 lines)': transactionCase('transaction (50 lines)', LARGE_TXN),
  customer: {
    name: 'customer',
    event: benchEvent('GET /customers/{customer_id}', { customer_id: String(CUSTOMER) }),
    pk: `CUS#${CUSTOMER}`,
    referenceSub: REFERENCE_SUB,
  },
};

/** The case a route's first response is measured on. */
export const CASE_OF_ROUTE: Record<string, Case> = {
  Transactions: CASES['transaction (1 line)']!,
  Customers: CASES.customer!,
};

export function writeSeedFile(path: string): void {
  writeFileSync(
    path,
    [
      line('transaction', transactionRecord(SMALL_TXN, 1)),
      line('transaction', transactionRecord(LARGE_TXN, 50)),
      line('customer', customerRecord(CUSTOMER, 2)),
    ].join('\n') + '\n',
  );
}
