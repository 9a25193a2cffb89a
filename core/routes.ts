/**
 * The API's functions and routes, in one table read by the CDK stack (API Gateway routes, one
 * function per entity), the local gateway and the functions themselves (each answers its routes
 * by route key), so that local and deployed routes cannot drift.
 */
import type { Entity } from './entities.ts';

export interface ApiFunctionSpec {
  /** Construct id of the function in the stack. */
  readonly id: string;
  /** Handler entry file, relative to the project root; it exports `handler` and `createHandler`. */
  readonly entry: string;
  /** The records it reads: its function may read that entity's files and no others. */
  readonly entity: Entity;
}

/** One function per entity (SPEC 1): a route of SPEC 10 is served by its records' function. */
export const apiFunctions = {
  transaction: { id: 'Transactions', entry: 'functions/transactions.ts', entity: 'transaction' },
  customer: { id: 'Customers', entry: 'functions/customers.ts', entity: 'customer' },
} as const satisfies Record<Entity, ApiFunctionSpec>;

export interface Route {
  /** The route's name in alarms and the dashboard. */
  readonly id: string;
  readonly method: 'GET';
  /** API Gateway route path, with `{name}` path parameters. */
  readonly path: string;
  /** The function that answers it. */
  readonly function: ApiFunctionSpec;
}

const route = (id: string, path: string, fn: ApiFunctionSpec): Route => ({
  id,
  method: 'GET',
  path,
  function: fn,
});

export const ROUTES = {
  getTransaction: route(
    'GetTransaction',
    '/transactions/{transaction_id}',
    apiFunctions.transaction,
  ),
  findTransactions: route('FindTransactions', '/transactions', apiFunctions.transaction),
  getCustomer: route('GetCustomer', '/customers/{customer_id}', apiFunctions.customer),
  findCustomers: route('FindCustomers', '/customers', apiFunctions.customer),
  customerTransactions: route(
    'CustomerTransactions',
    '/customers/{customer_id}/transactions',
    apiFunctions.customer,
  ),
} as const;

export const routes: readonly Route[] = Object.values(ROUTES);

/** `GET /transactions/{transaction_id}`: how API Gateway names the route in an event. */
export const routeKeyOf = (r: Route): string => `${r.method} ${r.path}`;

export const functionList: readonly ApiFunctionSpec[] = Object.values(apiFunctions);
