/**
 * The validator of test/support/contract.ts accepts what the handlers build and rejects broken
 * responses, so the end-to-end tests cannot pass vacuously. openapi.yaml itself and its
 * agreement with the code's record checks: contract-document.test.ts.
 */
import { respond } from '../../functions/shared/http.ts';
import { customer, transaction } from '../fixtures.ts';
import { createContract, loadOpenApi, type ObservedResponse } from '../support/contract.ts';
import { apiForm, asObserved, PATH, useApiForm, type Entity } from '../support/api-form.ts';

const contract = createContract(loadOpenApi());
useApiForm();

describe('the validator', () => {
  test('accepts what the handlers build: records, envelopes and headers', async () => {
    for (const entity of ['transaction', 'customer'] as const) {
      const record =
        entity === 'transaction' ? transaction() : customer({ id_photo: 'id-photos/a.png' });
      const ok = asObserved(respond(200, 'Ok', await apiForm(entity, record)));
      expect(contract.validate('GET', PATH[entity], ok)).toEqual([]);
    }
    // Any key S3 can store, percent-encoded in the path; with a session token, as in Lambda.
    const keys = ['signatures/a b#c?d%e+f=&é/日本語 (1).png', 'attachments/x'.padEnd(1024, 'y')];
    for (const sessionToken of [undefined, 'IQoJb3JpZ2luX2VjE+/=token']) {
      if (sessionToken) process.env.AWS_SESSION_TOKEN = sessionToken;
      try {
        for (const key of keys) {
          const record = await apiForm('transaction', transaction({ signature: key }));
          const ok = asObserved(respond(200, 'Ok', record));
          expect(contract.validate('GET', PATH.transaction, ok)).toEqual([]);
        }
      } finally {
        delete process.env.AWS_SESSION_TOKEN;
      }
    }
    const errors: [string, number, string, Record<string, string>?][] = [
      ['/transactions/0', 400, 'Invalid transaction id'],
      ['/customers/x', 400, 'Invalid customer id'],
      ['/transactions/1', 401, 'Unauthorized'],
      ['/customers/1', 403, 'Forbidden'],
      ['/transactions/9', 404, 'Transaction not found'],
      ['/customers/9', 404, 'Customer not found'],
      ['/customers/9', 500, 'Internal server error'],
      ['/transactions/9', 503, 'Service unavailable', { 'Retry-After': '1' }],
    ];
    for (const [path, status, message, headers] of errors)
      expect(
        contract.validate('GET', path, asObserved(respond(status, message, null, headers))),
      ).toEqual([]);
    // API Gateway's own answers: the authorizer's 401, the throttle's 429, a crashed function's 500.
    for (const [status, message] of [
      [429, 'Too Many Requests'],
      [500, 'Internal Server Error'],
    ] as const)
      expect(
        contract.validate('GET', '/transactions/1', {
          status,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ message }),
        }),
      ).toEqual([]);
    expect(
      contract.validate('GET', '/customers/1', {
        status: 401,
        headers: { 'content-type': 'application/json', 'www-authenticate': 'Bearer' },
        body: '{"message":"Unauthorized"}',
      }),
    ).toEqual([]);
  });

  describe('rejects a broken response', () => {
    const good = async (entity: Entity) =>
      JSON.parse(
        respond(
          200,
          'Ok',
          await apiForm(entity, entity === 'transaction' ? transaction() : customer()),
        ).body,
      ) as { message: string; data: Record<string, unknown> };
    const headers = respond(200, 'Ok', null).headers;

    type Break = (body: { message: string; data: Record<string, unknown> }) => void;
    const bodyBreaks: [string, Entity, Break][] = [
      ['message "OK"', 'transaction', (b) => void (b.message = 'OK')],
      ['an extra field', 'transaction', (b) => void (b.data.note = 'x')],
      ['a missing field', 'transaction', (b) => void delete b.data.attachment],
      ['decimal(2) with one digit', 'transaction', (b) => void (b.data.total_amount = '1250.0')],
      ['decimal(2) as a number', 'transaction', (b) => void (b.data.total_amount = 1250)],
      [
        'decimal(5) with three digits',
        'transaction',
        (b) =>
          void ((b.data.transaction_currencies as Record<string, unknown>[])[0]!.rate = '56.125'),
      ],
      [
        'a decimal with a leading zero',
        'transaction',
        (b) =>
          void ((
            b.data.transaction_currencies as Record<string, unknown>[]
          )[0]!.receive_profit_amount = '012.5'),
      ],
      [
        'created_at in ISO form',
        'transaction',
        (b) => void (b.data.created_at = '2023-09-15T10:01:02Z'),
      ],
      [
        'created_at at hour 24',
        'transaction',
        (b) => void (b.data.created_at = '2023-09-15 24:00:00'),
      ],
      ['receipt_no as a string', 'transaction', (b) => void (b.data.receipt_no = '20230915000123')],
      ['an id of 0', 'transaction', (b) => void (b.data.id = 0)],
      ['an id over 2^53-1', 'transaction', (b) => void (b.data.id = 2 ** 53)],
      ['a fractional id', 'transaction', (b) => void (b.data.id = 1.5)],
      [
        'a signature that is an S3 key',
        'transaction',
        (b) => void (b.data.signature = 'signatures/t-1.png'),
      ],
      [
        'a signature valid for two hours',
        'transaction',
        (b) =>
          void (b.data.signature = String(b.data.signature).replace(
            'X-Amz-Expires=300',
            'X-Amz-Expires=7200',
          )),
      ],
      [
        'a signature without its signature',
        'transaction',
        (b) =>
          void (b.data.signature = String(b.data.signature).replace(
            /&?X-Amz-Signature=[0-9a-f]+/,
            '',
          )),
      ],
      [
        'edit_enabled 2',
        'transaction',
        (b) =>
          void ((b.data.transaction_currencies as Record<string, unknown>[])[0]!.edit_enabled = 2),
      ],
      [
        'currency without a code',
        'transaction',
        (b) =>
          void ((b.data.transaction_currencies as Record<string, unknown>[])[0]!.currency =
            'US Dollar'),
      ],
      [
        'a coded value with a string value',
        'transaction',
        (b) => void (b.data.purpose = { value: '6', description: 'Shopping' }),
      ],
      ['an e-mail without @', 'customer', (b) => void (b.data.email = 'person.example.test')],
      ['tin as a number', 'customer', (b) => void (b.data.tin = 123)],
      [
        'date_of_birth without microseconds',
        'customer',
        (b) => void (b.data.date_of_birth = '1990-05-14T00:00:00Z'),
      ],
      [
        'date_of_birth with an offset',
        'customer',
        (b) => void (b.data.date_of_birth = '1990-05-14T00:00:00.000000+08:00'),
      ],
      ['a middle_name of null', 'customer', (b) => void (b.data.middle_name = null)],
      [
        'last_transaction_datetime empty',
        'customer',
        (b) => void (b.data.last_transaction_datetime = ''),
      ],
      ['data null on success', 'customer', (b) => void (b.data = null as never)],
    ];

    test.each(bodyBreaks)('200 with %s', async (_name, entity, breakIt) => {
      const body = await good(entity);
      expect(
        contract.validate('GET', PATH[entity], {
          status: 200,
          headers,
          body: JSON.stringify(body),
        }),
      ).toEqual([]);
      breakIt(body);
      expect(
        contract.validate('GET', PATH[entity], {
          status: 200,
          headers,
          body: JSON.stringify(body),
        }),
      ).not.toEqual([]);
    });

    const error = (status: number, message: string, extra: Record<string, string> = {}) =>
      asObserved(respond(status, message, null, extra));
    const withHeaders = (r: ObservedResponse, h: Record<string, string | undefined>) => ({
      ...r,
      headers: { ...(r.headers as Record<string, string>), ...h },
    });
    const responseBreaks: [string, string, ObservedResponse][] = [
      ['a 503 without Retry-After', '/transactions/1', error(503, 'Service unavailable')],
      [
        'a 503 with Retry-After 0',
        '/transactions/1',
        error(503, 'Service unavailable', { 'Retry-After': '0' }),
      ],
      [
        'a 503 with a date in Retry-After',
        '/transactions/1',
        error(503, 'Service unavailable', { 'Retry-After': 'Wed, 21 Oct 2015 07:28:00 GMT' }),
      ],
      [
        'a 404 without Cache-Control',
        '/transactions/1',
        withHeaders(error(404, 'Transaction not found'), { 'Cache-Control': undefined }),
      ],
      [
        'a 404 cacheable',
        '/transactions/1',
        withHeaders(error(404, 'Transaction not found'), { 'Cache-Control': 'max-age=60' }),
      ],
      [
        'a 404 without nosniff',
        '/transactions/1',
        withHeaders(error(404, 'Transaction not found'), { 'X-Content-Type-Options': undefined }),
      ],
      [
        'a 404 as text/plain',
        '/transactions/1',
        withHeaders(error(404, 'Transaction not found'), { 'Content-Type': 'text/plain' }),
      ],
      [
        'a 404 without charset',
        '/transactions/1',
        withHeaders(error(404, 'Transaction not found'), { 'Content-Type': 'application/json' }),
      ],
      ['a 404 with the other entity', '/transactions/1', error(404, 'Customer not found')],
      ['a 400 with the other entity', '/customers/1', error(400, 'Invalid transaction id')],
      ['a 403 on transactions (never sent)', '/transactions/1', error(403, 'Forbidden')],
      ['a 418', '/transactions/1', error(418, 'Teapot')],
      [
        "API Gateway's 429 with data",
        '/transactions/1',
        {
          status: 429,
          headers: { 'content-type': 'application/json' },
          body: '{"message":"Too Many Requests","data":null}',
        },
      ],
      [
        "API Gateway's 500 with the function's message",
        '/transactions/1',
        {
          status: 500,
          headers: { 'content-type': 'application/json' },
          body: '{"message":"Internal server error"}',
        },
      ],
      [
        'a 500 with a stack trace',
        '/transactions/1',
        {
          ...error(500, 'Internal server error'),
          body: '{"message":"Internal server error","data":null,"stack":"Error: x\\n at y"}',
        },
      ],
      [
        'a 500 with data',
        '/customers/1',
        {
          ...error(500, 'Internal server error'),
          body: '{"message":"Internal server error","data":{"id":1}}',
        },
      ],
      [
        'a 500 with the error message',
        '/customers/1',
        error(500, 'Stored customer is corrupt at customer.email'),
      ],
      [
        'a body that is not JSON',
        '/customers/1',
        { ...error(404, 'Customer not found'), body: 'Not Found' },
      ],
      [
        'an authorizer 401 with data',
        '/customers/1',
        {
          status: 401,
          headers: { 'content-type': 'application/json' },
          body: '{"message":"Unauthorized","data":null,"reason":"expired"}',
        },
      ],
      [
        'an authorizer 401 with another message',
        '/customers/1',
        {
          status: 401,
          headers: { 'content-type': 'application/json' },
          body: '{"message":"Token expired"}',
        },
      ],
      ['an unknown route', '/branches/1', error(404, 'Not Found')],
    ];
    test.each(responseBreaks)('%s', (_name, path, response) => {
      expect(contract.validate('GET', path, response)).not.toEqual([]);
    });
  });
});
