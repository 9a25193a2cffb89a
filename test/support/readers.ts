/**
 * The real GET handlers against a test table, for tests of SPEC 6.1: a 503 (DynamoDB Local too
 * slow to answer on a loaded machine) is asked again, as a client would, and counted; what comes
 * back in the end is the answer.
 */
import { parseExactJson } from '../../core/json.ts';
import { apiEvent, lambdaContext } from './events.ts';
import { MANY_READS, testHandlers } from './handlers.ts';
import { quietRequestLogs } from './logs.ts';

export type Entity = 'transaction' | 'customer';

export async function startReaders(endpoint: string, tableName: string) {
  // Thousands of GETs: their request log lines are not what these tests check.
  quietRequestLogs();
  const { client, ...handlers } = testHandlers(endpoint, tableName, MANY_READS);
  const counts = { unavailable: 0 };
  const get = async (entity: Entity, id: number) => {
    const param = entity === 'transaction' ? 'transaction_id' : 'customer_id';
    const event = apiEvent(`GET /${entity}s/{${param}}`, { [param]: String(id) });
    let result = await handlers[entity](event, lambdaContext);
    for (let retry = 0; result.statusCode === 503 && retry < 5; retry += 1) {
      counts.unavailable += 1;
      result = await handlers[entity](event, lambdaContext);
    }
    const body = parseExactJson(result.body) as { data: Record<string, unknown> };
    return { status: result.statusCode, data: body.data };
  };
  return { get, counts, client };
}
