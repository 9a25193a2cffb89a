/** GET /transactions/{transaction_id}: any signed-in user of the pool. */
import { TRANSACTION } from '../core/entities.ts';
import type { ApiHandler } from './shared/http.ts';
import { onFirstCall } from './shared/on-first-call.ts';
import { recordHandler } from './shared/record-handler.ts';
import { runtimeFromEnv, type Runtime } from './shared/runtime.ts';

export const createHandler = (runtime: Runtime): ApiHandler => recordHandler(TRANSACTION, runtime);

export const handler = onFirstCall(() => createHandler(runtimeFromEnv()));
