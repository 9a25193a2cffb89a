/** GET /transactions/{transaction_id}: any signed-in user of the pool. */
import { TRANSACTION } from '../core/entities';
import type { ApiHandler } from './shared/http';
import { onFirstRequest, recordHandler } from './shared/record-handler';
import { runtimeFromEnv, type Runtime } from './shared/runtime';

export const createHandler = (runtime: Runtime): ApiHandler => recordHandler(TRANSACTION, runtime);

export const handler = onFirstRequest(() => createHandler(runtimeFromEnv()));
