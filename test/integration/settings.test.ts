/**
 * The functions' settings reach the response: DISPLAY_TIME_ZONE for times (SPEC 3.5, import and
 * GET in the same zone, UTC in the table) and SIGNATURE_URL_TTL_SECONDS for file URLs (SPEC 3.4).
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { ApiHandler } from '../../functions/shared/http.ts';
import { customer, line, transaction } from '../fixtures.ts';
import { startTestTable } from '../support/dynamodb.ts';
import { testHandlers } from '../support/handlers.ts';
import { apiEvent, lambdaContext } from '../support/events.ts';

const ZONE = 'Asia/Manila';
let table: Awaited<ReturnType<typeof startTestTable>>;
let getTransaction: ApiHandler;
let getCustomer: ApiHandler;

beforeAll(async () => {
  table = await startTestTable();
  ({ transaction: getTransaction, customer: getCustomer } = testHandlers(
    table.endpoint,
    table.tableName,
    { DISPLAY_TIME_ZONE: ZONE, SIGNATURE_URL_TTL_SECONDS: '3600' },
  ));
  await table.importLines(
    [
      line('transaction', transaction({ id: 1, created_at: '2024-01-01 07:30:00' })),
      line(
        'customer',
        customer({
          id: 1,
          id_photo: 'id-photos/1.png',
          last_transaction_datetime: '2024-01-01 07:30:00',
        }),
      ),
    ],
    { displayTimeZone: ZONE },
  );
}, 90_000);
afterAll(async () => table?.stop());

const getData = async (entity: 'transaction' | 'customer') =>
  JSON.parse(
    entity === 'transaction'
      ? (
          await getTransaction(
            apiEvent('GET /transactions/{transaction_id}', { transaction_id: '1' }),
            lambdaContext,
          )
        ).body
      : (
          await getCustomer(
            apiEvent('GET /customers/{customer_id}', { customer_id: '1' }),
            lambdaContext,
          )
        ).body,
  ).data;

test('times are imported and shown in DISPLAY_TIME_ZONE and stored in UTC', async () => {
  expect((await getData('transaction')).created_at).toBe('2024-01-01 07:30:00');
  expect((await getData('customer')).last_transaction_datetime).toBe('2024-01-01 07:30:00');
  const stored = await table.client.send(
    new GetCommand({ TableName: table.tableName, Key: { pk: 'TXN#1', sk: 'TXN' } }),
  );
  expect(stored.Item?.created_at).toBe('2023-12-31T23:30:00Z');
});

test('file URLs are signed for SIGNATURE_URL_TTL_SECONDS', async () => {
  expect(new URL((await getData('transaction')).signature).searchParams.get('X-Amz-Expires')).toBe(
    '3600',
  );
  expect(new URL((await getData('customer')).id_photo).searchParams.get('X-Amz-Expires')).toBe(
    '3600',
  );
});
