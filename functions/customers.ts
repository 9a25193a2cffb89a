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
import { apiDepsFromEnv, type ApiDeps } from './shared/api-deps.ts';

export const createHandler = (deps: ApiDeps): ApiHandler =>
  byRoute(
    [
      [ROUTES.getCustomer, recordHandler(CUSTOMER, deps)],
      [ROUTES.findCustomers, lookupHandler(FIND_CUSTOMERS, deps)],
      [ROUTES.customerTransactions, lookupHandler(CUSTOMER_TRANSACTIONS, deps)],
    ],
    CUSTOMER,
    deps.audit,
  );

export const handler = onFirstCall(() => createHandler(apiDepsFromEnv()));
