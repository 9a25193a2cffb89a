/**
 * The API's routes, in one table read by both the CDK stack (API Gateway routes and one
 * function per route) and the local gateway, so that local and deployed routes cannot drift.
 */
import type { Entity } from '../core/entities.ts';

export interface Route {
  /** Construct id of the route's function in the stack. */
  readonly id: string;
  readonly method: 'GET';
  /** API Gateway route path, with `{name}` path parameters. */
  readonly path: string;
  /** Handler entry file, relative to the project root; it exports `handler`. */
  readonly entry: string;
  /** The record it reads: its function may read that entity's files and no others. */
  readonly entity: Entity;
}

export const routes: readonly Route[] = [
  {
    id: 'GetTransaction',
    method: 'GET',
    path: '/transactions/{transaction_id}',
    entry: 'functions/get-transaction.ts',
    entity: 'transaction',
  },
  {
    id: 'GetCustomer',
    method: 'GET',
    path: '/customers/{customer_id}',
    entry: 'functions/get-customer.ts',
    entity: 'customer',
  },
];
