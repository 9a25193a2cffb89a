import type { Context } from 'aws-lambda';
import { jest } from '@jest/globals';
import type { ApiEvent } from '../../functions/shared/auth.ts';
import {
  BadRequestError,
  NotFoundError,
  ServiceUnavailableError,
} from '../../functions/shared/errors.ts';
import { apiHandler } from '../../functions/shared/http.ts';
import { CorruptRecordError } from '../../core/records.ts';

const event = {
  routeKey: 'GET /things/{id}',
  requestContext: { requestId: 'api-1' },
} as unknown as ApiEvent;
const context = {
  awsRequestId: 'req-1',
  getRemainingTimeInMillis: () => 10_000,
} as unknown as Context;
const SPEC_HEADERS = {
  'Content-Type': 'application/json; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
};

async function call(logic: () => Promise<unknown>) {
  const writes: string[] = [];
  const spy = jest
    .spyOn(process.stdout, 'write')
    .mockImplementation((chunk) => (writes.push(String(chunk)), true));
  try {
    const result = await apiHandler(logic)(event, context);
    return { result, body: JSON.parse(result.body), logs: writes.map((w) => JSON.parse(w)) };
  } finally {
    spy.mockRestore();
  }
}

describe('envelope and error mapping (SPEC 2 and 4)', () => {
  test('success: 200, "Ok", the record as data, exact integers, the SPEC headers', async () => {
    const { result, body } = await call(async () => ({ id: 9007199254740993n, amount: '1.00' }));
    expect(result.statusCode).toBe(200);
    expect(result.headers).toEqual(SPEC_HEADERS);
    expect(result.body).toBe('{"message":"Ok","data":{"id":9007199254740993,"amount":"1.00"}}');
    expect(body.message).toBe('Ok');
  });

  test.each([
    [new BadRequestError('Invalid transaction id'), 400, 'Invalid transaction id'],
    [new NotFoundError('Customer not found'), 404, 'Customer not found'],
  ])('%p keeps its status and message, with data null', async (error, status, message) => {
    const { result, body } = await call(async () => Promise.reject(error));
    expect(result.statusCode).toBe(status);
    expect(body).toEqual({ message, data: null });
    expect(result.headers).toEqual(SPEC_HEADERS);
  });

  test('503 carries Retry-After', async () => {
    const { result, body } = await call(async () => Promise.reject(new ServiceUnavailableError()));
    expect(result.statusCode).toBe(503);
    expect(body).toEqual({ message: 'Service unavailable', data: null });
    expect(result.headers).toEqual({ ...SPEC_HEADERS, 'Retry-After': '1' });
  });

  test('an SDK throttling error that escapes is still a 503', async () => {
    const throttled = Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
    const { result } = await call(async () => Promise.reject(throttled));
    expect(result.statusCode).toBe(503);
    expect(result.headers['Retry-After']).toBe('1');
  });

  test('a bug is a bare 500: no message, no stack, no data', async () => {
    const secret = 'person@example.test at /var/task/index.js:1';
    for (const error of [new TypeError(secret), new CorruptRecordError(secret)]) {
      const { result, body, logs } = await call(async () => Promise.reject(error));
      expect(result.statusCode).toBe(500);
      expect(body).toEqual({ message: 'Internal server error', data: null });
      expect(result.body).not.toContain('example.test');
      expect(JSON.stringify(logs)).not.toContain('example.test');
    }
  });

  test('one structured log line per request, with both request ids, route, status and latency, no body', async () => {
    const { logs } = await call(async () => ({ email: 'person@example.test' }));
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({
      level: 'INFO',
      requestId: 'req-1',
      apiRequestId: 'api-1',
      route: 'GET /things/{id}',
      status: 200,
    });
    expect(typeof logs[0].latencyMs).toBe('number');
    expect(JSON.stringify(logs)).not.toContain('example.test');
  });

  test('an error line carries both request ids too, and the X-Ray trace id when Lambda sets one', async () => {
    process.env._X_AMZN_TRACE_ID = 'Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1';
    try {
      const { logs } = await call(async () => Promise.reject(new TypeError('x')));
      expect(logs[0]).toMatchObject({
        level: 'ERROR',
        requestId: 'req-1',
        apiRequestId: 'api-1',
        status: 500,
        errorName: 'TypeError',
        traceId: 'Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1',
      });
    } finally {
      delete process.env._X_AMZN_TRACE_ID;
    }
  });
});
