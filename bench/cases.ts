/**
 * What the GET measures read: a small and a large transaction (50 lines) and a customer, as the
 * seed file that imports them and as the events the functions are invoked with; and the lookups
 * (SPEC 10) the warm section measures: a receipt, a page of namesakes, a customer's transactions.
 */
import { CUSTOMER_READERS_GROUP } from '../core/groups.ts';
import { writeFileSync } from 'node:fs';
import { ROUTES, routeKeyOf } from '../core/routes.ts';
import { INDEXES, namePrefix, type IndexLayout } from '../core/lookups.ts';
import { normaliseName } from '../core/matching.ts';
import { buildApiEvent } from '../local/gateway/api-event.ts';
import type { Case, LookupCase } from './children/invoke.ts';
import { customerRecord, line, transactionRecord } from './generate.ts';
import type { LookupQuery } from './reference-read.ts';

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
export function benchEvent(
  routeKey: string,
  pathParameters: Record<string, string>,
  rawQueryString = '',
) {
  return buildApiEvent({
    routeKey,
    pathParameters,
    rawQueryString,
    // As API Gateway fills it in beside the raw string (the lookups read the raw string only).
    queryStringParameters: Object.fromEntries(new URLSearchParams(rawQueryString)),
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

/** A page of lookups: as many summaries as a lookup returns by default (LIMIT.default). */
export const PAGE = 10;
/**
 * More than a page and its one entry more (the Query's Limit) of each, so that a page is full
 * and has a next one, as a common name's: customers of one last name, and transactions of the
 * customer above (ids from the first).
 */
const SEEDED_PER_LOOKUP = PAGE + 2;
const NAMESAKE = 'Benchnamesake';
const FIRST_NAMESAKE = 201;
const FIRST_OF_CUSTOMER = 101;
/** The receipt of the small transaction (bench/generate.ts numbers receipts by id): one result. */
export const RECEIPT_NO = 20230000000000 + SMALL_TXN;

const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

/** The Query a lookup sends (functions/shared/store.ts `queryIndex`), for the reference to send. */
const lookupQuery = (
  index: IndexLayout,
  entity: LookupQuery['entity'],
  partition: string,
  descending: boolean,
  sortPrefix?: string,
): LookupQuery => ({
  entity,
  index: index.name,
  partitionKey: index.partitionKey,
  sortKey: index.sortKey,
  partition,
  ...(sortPrefix === undefined ? {} : { sortPrefix }),
  descending,
  page: PAGE,
  limit: PAGE + 1,
});

const namesake = normaliseName(NAMESAKE);

export const LOOKUP_CASES: Record<string, LookupCase> = {
  'receipt (1 result)': {
    name: 'receipt (1 result)',
    event: benchEvent(routeKeyOf(ROUTES.findTransactions), {}, `receipt_no=${RECEIPT_NO}`),
    query: lookupQuery(INDEXES.receipt, 'transaction', String(RECEIPT_NO), true),
    summaries: 1,
    referenceSub: REFERENCE_SUB,
  },
  'customer name (10 namesakes)': {
    name: 'customer name (10 namesakes)',
    event: benchEvent(routeKeyOf(ROUTES.findCustomers), {}, `last_name=${NAMESAKE}`),
    // A last name alone still narrows the sort key to `<last>#` (functions/shared/lookup-requests.ts).
    query: lookupQuery(INDEXES.lastName, 'customer', namesake, false, namePrefix(namesake, '')),
    summaries: PAGE,
    referenceSub: REFERENCE_SUB,
  },
  "customer's transactions (10)": {
    name: "customer's transactions (10)",
    event: benchEvent(routeKeyOf(ROUTES.customerTransactions), {
      customer_id: String(CUSTOMER),
    }),
    query: lookupQuery(INDEXES.customerTransactions, 'transaction', String(CUSTOMER), true),
    summaries: PAGE,
    referenceSub: REFERENCE_SUB,
  },
};

/** The lookups each function answers, by the function's id (core/routes.ts). */
export const LOOKUPS_OF_FUNCTION: Record<string, LookupCase[]> = {
  Transactions: [LOOKUP_CASES['receipt (1 result)']!],
  Customers: [
    LOOKUP_CASES['customer name (10 namesakes)']!,
    LOOKUP_CASES["customer's transactions (10)"]!,
  ],
};

/**
 * The seed the GET and lookup cases read, imported by the direct import (import/writer.ts writes
 * each record's index keys with it, core/layout.ts itemOf): the lookups find what a stage's would.
 */
export function writeSeedFile(path: string): void {
  const ofCustomer = range(FIRST_OF_CUSTOMER, SEEDED_PER_LOOKUP).map((id) => {
    const record = transactionRecord(id, 1) as { customer: { id: number } };
    return { ...record, customer: { ...record.customer, id: CUSTOMER } };
  });
  const namesakes = range(FIRST_NAMESAKE, SEEDED_PER_LOOKUP).map((id) => ({
    ...customerRecord(id, 1),
    last_name: NAMESAKE,
  }));
  writeFileSync(
    path,
    [
      line('transaction', transactionRecord(SMALL_TXN, 1)),
      line('transaction', transactionRecord(LARGE_TXN, 50)),
      line('customer', customerRecord(CUSTOMER, 2)),
      ...ofCustomer.map((record) => line('transaction', record)),
      ...namesakes.map((record) => line('customer', record)),
    ].join('\n') + '\n',
  );
}
