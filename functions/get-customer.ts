/** GET /customers/{customer_id}: signed-in users in the group customer-readers. */
import { CUSTOMER } from '../core/entities';
import type { ApiHandler } from './shared/http';
import { onFirstRequest, recordHandler } from './shared/record-handler';
import { runtimeFromEnv, type Runtime } from './shared/runtime';

export const createHandler = (runtime: Runtime): ApiHandler => recordHandler(CUSTOMER, runtime);

export const handler = onFirstRequest(() => createHandler(runtimeFromEnv()));
