/**
 * DynamoDB Local with the real GET handlers, for test/integration/store.test.ts: started once
 * (useStoreTable), and these live bindings are set by its beforeAll.
 */
import type { ApiHandler } from '../../functions/shared/http.ts';
import { parseExactJson } from '../../core/json.ts';
import { startTestTable } from './dynamodb.ts';
import { MANY_READS, testHandlers } from './handlers.ts';
import { apiEvent, lambdaContext } from './events.ts';

export let table: Awaited<ReturnType<typeof startTestTable>>;
export let runtimeClient: { send: (...args: never[]) => unknown };
let getTransaction: ApiHandler;
let getCustomer: ApiHandler;

/** Starts the table and the handlers before the file's tests, stops the table after them. */

export function useStoreTable(): void {
  beforeAll(async () => {
    table = await startTestTable();
    const handlers = testHandlers(table.endpoint, table.tableName, MANY_READS);
    ({ transaction: getTransaction, customer: getCustomer } = handlers);
    runtimeClient = handlers.client as never;
  }, 90_000);
  afterAll(async () => table?.stop());
}

/** The import's summary, or the error it threw, and the problems it named. */
export async function importLines(lines: string[]) {
  const problems: string[] = [];
  try {
    const summary = await table.importLines(lines, { onProblem: (p) => problems.push(p) });
    return { summary, problems };
  } catch (error) {
    return { error, problems };
  }
}

export const get = async (entity: 'transaction' | 'customer', id: string) => {
  const result =
    entity === 'transaction'
      ? await getTransaction(
          apiEvent('GET /transactions/{transaction_id}', { transaction_id: id }),
          lambdaContext,
        )
      : await getCustomer(
          apiEvent('GET /customers/{customer_id}', { customer_id: id }),
          lambdaContext,
        );
  return {
    status: result.statusCode,
    body: result.body,
    json: parseExactJson(result.body) as { message: string; data: Record<string, unknown> },
  };
};
