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
  more: Readonly<Record<string, unknown>> = {},
): ApiResult {
  return {
    statusCode,
    headers: { ...HEADERS, ...headers },
    body: stringifyExactJson({ message, data, ...more }),
  };
}

/** A lookup's answer (SPEC 10): the page's summaries and the cursor of the next, or null. */
export class Page {
  readonly data: readonly unknown[];
  readonly next: string | null;

  constructor(data: readonly unknown[], next: string | null) {
    this.data = data;
    this.next = next;
  }
}

const success = (data: unknown): ApiResult =>
  data instanceof Page
    ? respond(200, 'Ok', data.data, {}, { next: data.next })
    : respond(200, 'Ok', data);

/**
 * What an error answers: a known error its status and message; a timeout or an unreachable
 * store, wherever it was met (the record, the access state), a 503: the one place an outage
 * becomes one. Anything else is a bare 500.
 */
function answerOf(error: Error | null | undefined): Error | undefined {
  if (error instanceof HttpError) return error;
  return isUnavailable(error) ? new ServiceUnavailableError() : (error ?? undefined);
}

function errorResponse(error: Error | undefined): ApiResult {
  return error instanceof HttpError
    ? respond(error.statusCode, error.message, null, error.headers)
    : respond(500, INTERNAL_ERROR_MESSAGE, null);
}

/**
 * What a route reads from its request once, before anything else (the record's id), handed to
 * its logic and to the response's listener.
 */
export interface RouteParts<P> {
  prepare: (event: ApiEvent) => P;
  /** Told of every response, once, after it is made (the audit trail: ./audit.ts). */
  onResponse?: (event: ApiEvent, context: Context, status: number, prepared: P) => void;
}

/**
 * Lambda's context with what `prepare` made of the request: middy hands a middleware's values to
 * the handler on the context. Lambda's own context lacks it, so it is optional.
 */
type RouteContext<P> = Context & { prepared?: P };

/** The request's own state, kept where middy keeps it for middlewares. */
interface Internal extends Record<string, unknown> {
  started: number;
}

function envelope<P>(
  route: RouteParts<P>,
): middy.MiddlewareObj<ApiEvent, ApiResult, Error, RouteContext<P>, Internal> {
  const finish = (
    request: middy.Request<ApiEvent, ApiResult, Error, RouteContext<P>, Internal>,
    result: ApiResult,
    error?: Error,
  ): void => {
    request.response = result;
    const { event, context } = request;
    if ('prepared' in context)
      route.onResponse?.(event, context, result.statusCode, context.prepared as P);
    log({
      level: result.statusCode >= 500 ? 'ERROR' : 'INFO',
      message: 'request',
      requestId: context.awsRequestId,
      apiRequestId: event.requestContext?.requestId,
      route: event.routeKey,
      status: result.statusCode,
      latencyMs: Math.round(performance.now() - request.internal.started),
      ...(error && result.statusCode >= 500 ? { errorName: error.name } : {}),
    });
  };
  return {
    before: (request) => {
      request.internal.started = performance.now();
      request.context.prepared = route.prepare(request.event);
    },
    after: (request) => finish(request, request.response!),
    onError: (request) => {
      const error = answerOf(request.error);
      finish(request, errorResponse(error), error);
    },
  };
}

/** A route's handler as Lambda calls it. */
export type ApiHandler = (event: ApiEvent, context: Context) => Promise<ApiResult>;

/** Wraps a route's logic: it gets the event and what `prepare` made of it, and returns `data`. */
export function apiHandler<P = undefined>(
  logic: (event: ApiEvent, prepared: P) => Promise<unknown>,
  route: RouteParts<P> = { prepare: () => undefined as P },
): ApiHandler {
  return middy<ApiEvent, ApiResult, Error, RouteContext<P>, Internal>()
    .use(envelope(route))
    .handler(async (event, context) =>
      success(await logic(event, context.prepared ?? route.prepare(event))),
    );
}
