/**
 * The response envelope (SPEC 2) and the mapping of errors to responses (SPEC 4), in one
 * middy middleware: a handler returns the record, or throws.
 */
import middy from '@middy/core';
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { ApiEvent } from './auth.ts';
import { HttpError, INTERNAL_ERROR_MESSAGE, ServiceUnavailableError } from './errors.ts';
import { stringifyExactJson } from '../../core/json.ts';
import { isUnavailable } from '../../core/unavailable.ts';
import { log } from './logger.ts';

export type ApiResult = APIGatewayProxyStructuredResultV2 & {
  statusCode: number;
  body: string;
  headers: Record<string, string>;
};

const HEADERS = {
  'Content-Type': 'application/json; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
} as const;

export function respond(
  statusCode: number,
  message: string,
  data: unknown,
  headers: Readonly<Record<string, string>> = {},
): ApiResult {
  return {
    statusCode,
    headers: { ...HEADERS, ...headers },
    body: stringifyExactJson({ message, data }),
  };
}

/** Known errors keep their status and message; a timeout or an unreachable store is a 503; the rest a bare 500. */
function errorResponse(error: unknown): ApiResult {
  const known =
    error instanceof HttpError
      ? error
      : isUnavailable(error)
        ? new ServiceUnavailableError()
        : undefined;
  return known
    ? respond(known.statusCode, known.message, null, known.headers)
    : respond(500, INTERNAL_ERROR_MESSAGE, null);
}

type Request = middy.Request<ApiEvent, unknown, Error, Context>;

/** Told of every response, once, after it is made (the audit trail: ./audit.ts). */
export type OnResponse = (event: ApiEvent, context: Context, status: number) => void;

function envelope(onResponse?: OnResponse): middy.MiddlewareObj<ApiEvent, unknown, Error, Context> {
  const started = new WeakMap<Request, number>();
  const finish = (request: Request, result: ApiResult, error?: Error): void => {
    request.response = result;
    onResponse?.(request.event, request.context, result.statusCode);
    log({
      level: result.statusCode >= 500 ? 'ERROR' : 'INFO',
      message: 'request',
      requestId: request.context.awsRequestId,
      apiRequestId: request.event.requestContext?.requestId,
      route: request.event.routeKey,
      status: result.statusCode,
      latencyMs: Math.round(performance.now() - (started.get(request) ?? performance.now())),
      ...(error && result.statusCode >= 500 ? { errorName: error.name } : {}),
    });
  };
  return {
    before: (request) => {
      started.set(request, performance.now());
    },
    after: (request) => finish(request, respond(200, 'Ok', request.response)),
    onError: (request) => finish(request, errorResponse(request.error), request.error ?? undefined),
  };
}

/** A route's handler as Lambda calls it. */
export type ApiHandler = (event: ApiEvent, context: Context) => Promise<ApiResult>;

/** Wraps a route's logic: it gets the event and returns the record for `data`. */
export function apiHandler(
  logic: (event: ApiEvent) => Promise<unknown>,
  onResponse?: OnResponse,
): ApiHandler {
  const handler = middy<ApiEvent, unknown, Error, Context>()
    .use(envelope(onResponse))
    .handler((event) => logic(event));
  return handler as unknown as ApiHandler;
}
