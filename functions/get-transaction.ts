/** GET /transactions/{transaction_id}: any signed-in user of the pool. */
import { requireAccessToken } from './shared/auth';
import { NotFoundError } from './shared/errors';
import { apiHandler } from './shared/http';
import { parsePathId } from './shared/ids';
import { toApiTransaction } from './shared/mapping';
import { runtime } from './shared/runtime';
import { getCollection } from './shared/table';

export const handler = apiHandler(async (event) => {
  requireAccessToken(event);
  const id = parsePathId(event.pathParameters?.transaction_id, 'transaction');
  const collection = await getCollection(
    runtime.client,
    runtime.config.tableName,
    'transaction',
    id,
  );
  if (!collection.head) throw new NotFoundError('Transaction not found');
  return toApiTransaction({ ...collection, head: collection.head }, runtime);
});
