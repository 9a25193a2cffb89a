/** GET /customers/{customer_id}: signed-in users in the group customer-readers. */
import { requireAccessToken, requireGroup } from './shared/auth';
import { NotFoundError } from './shared/errors';
import { apiHandler } from './shared/http';
import { parsePathId } from './shared/ids';
import { toApiCustomer } from './shared/mapping';
import { runtime } from './shared/runtime';
import { getCollection } from './shared/table';

export const CUSTOMER_READERS = 'customer-readers';

export const handler = apiHandler(async (event) => {
  requireAccessToken(event);
  requireGroup(event, CUSTOMER_READERS);
  const id = parsePathId(event.pathParameters?.customer_id, 'customer');
  const collection = await getCollection(runtime.client, runtime.config.tableName, 'customer', id);
  if (!collection.head) throw new NotFoundError('Customer not found');
  return toApiCustomer({ ...collection, head: collection.head }, runtime);
});
