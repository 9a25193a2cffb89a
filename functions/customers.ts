/**
 * The customer function, for the group customer-readers: a customer by id, customers by what staff
 * hold, and a customer's transactions (SPEC 10).
 */
import { CUSTOMER } from '../core/entities.ts';
import { ROUTES } from '../core/routes.ts';
import { byRoute } from './shared/by-route.ts';
import type { ApiHandler } from './shared/http.ts';
import { lookupHandler } from './shared/lookup-handler.ts';
import { CUSTOMER_TRANSACTIONS, FIND_CUSTOMERS } from './shared/lookup-requests.ts';
import { onFirstCall } from './shared/on-first-call.ts';
import { recordHandler } from './shared/record-handler.ts';
import { runtimeFromEnv, type Runtime } from './shared/runtime.ts';

export const createHandler = (runtime: Runtime): ApiHandler =>
  byRoute(
    [
      [ROUTES.getCustomer, recordHandler(CUSTOMER, runtime)],
      [ROUTES.findCustomers, lookupHandler(FIND_CUSTOMERS, runtime)],
      [ROUTES.customerTransactions, lookupHandler(CUSTOMER_TRANSACTIONS, runtime)],
    ],
    CUSTOMER,
    runtime.audit,
  );

export const handler = onFirstCall(() => createHandler(runtimeFromEnv()));
