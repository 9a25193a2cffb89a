/** The transaction function: a transaction by id (any signed-in user), and by receipt (SPEC 10). */
import { TRANSACTION } from '../core/entities.ts';
import { ROUTES } from '../core/routes.ts';
import { byRoute } from './shared/by-route.ts';
import type { ApiHandler } from './shared/http.ts';
import { lookupHandler } from './shared/lookup-handler.ts';
import { FIND_TRANSACTIONS } from './shared/lookup-requests.ts';
import { onFirstCall } from './shared/on-first-call.ts';
import { recordHandler } from './shared/record-handler.ts';
import { apiDepsFromEnv, type ApiDeps } from './shared/api-deps.ts';

export const createHandler = (deps: ApiDeps): ApiHandler =>
  byRoute(
    [
      [ROUTES.getTransaction, recordHandler(TRANSACTION, deps)],
      [ROUTES.findTransactions, lookupHandler(FIND_TRANSACTIONS, deps)],
    ],
    TRANSACTION,
    deps.audit,
  );

export const handler = onFirstCall(() => createHandler(apiDepsFromEnv()));
