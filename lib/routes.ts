/**
 * The API's routes, in one table read by both the CDK stack (API Gateway routes and one
 * function per route) and the local gateway, so that local and deployed routes cannot drift.
 */
export interface Route {
  /** Construct id of the route's function in the stack. */
  readonly id: string;
  readonly method: 'GET';
  /** API Gateway route path, with `{name}` path parameters. */
  readonly path: string;
  /** Handler entry file, relative to the project root; it exports `handler`. */
  readonly entry: string;
}

export const routes: readonly Route[] = [
  {
    id: 'GetTransaction',
    method: 'GET',
    path: '/transactions/{transaction_id}',
    entry: 'functions/get-transaction.ts',
  },
  {
    id: 'GetCustomer',
    method: 'GET',
    path: '/customers/{customer_id}',
    entry: 'functions/get-customer.ts',
  },
];
