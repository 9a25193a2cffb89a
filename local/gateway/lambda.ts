/**
 * The Lambda side of the local gateway. A route's handler is imported once; a failed init is
 * retried on the next invocation, as Lambda does. Each invocation gets a context of its own and
 * is held to the function timeout.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, Context } from 'aws-lambda';
import { PROJECT_ROOT } from '../../core/project-root.ts';
import type { ApiFunctionSpec, Route } from '../../core/routes.ts';
import { stdoutAudit, type AuditSink } from '../../functions/shared/audit.ts';
import { loadConfig } from '../../functions/shared/config.ts';
import { createApiDeps, type ApiDeps } from '../../functions/shared/api-deps.ts';
import { buildLambdaContext, pad } from './api-event.ts';
import { appendAuditEvents } from '../tools/audit-log.ts';

export type LambdaHandler = (
  event: APIGatewayProxyEventV2WithJWTAuthorizer,
  context: Context,
) => unknown;
/** A function's handler, as Lambda would load it for the function of these routes. */
export type HandlerLoader = (fn: ApiFunctionSpec) => Promise<LambdaHandler>;

/** Imports the function's entry file (relative to the project root) and returns its `handler`. */
export const importHandler: HandlerLoader = async (fn) => {
  const module = (await import(pathToFileURL(join(PROJECT_ROOT, fn.entry)).href)) as {
    handler?: unknown;
  };
  if (typeof module.handler !== 'function')
    throw new Error(`${fn.entry} does not export a handler function`);
  return module.handler as LambdaHandler;
};

/**
 * The route's handler as the deployed function builds it (createHandler, with the deps its
 * environment configures), its audit events written to stdout as in Lambda and also appended to
 * the trail `auditFile` (local/tools/audit-log.ts: a directory of day files), which `npm run audit`
 * reads (SPEC 8).
 */
export function auditedHandlers(auditFile: string): HandlerLoader {
  const audit: AuditSink = (event) => {
    stdoutAudit(event);
    appendAuditEvents(auditFile, [event]);
  };
  return async (fn) => {
    const module = (await import(pathToFileURL(join(PROJECT_ROOT, fn.entry)).href)) as {
      createHandler?: (deps: ApiDeps) => LambdaHandler;
    };
    if (typeof module.createHandler !== 'function')
      throw new Error(`${fn.entry} does not export createHandler`);
    return module.createHandler(createApiDeps(loadConfig(process.env), { audit }));
  };
}

export interface FunctionsOptions {
  loadHandler: HandlerLoader;
  timeoutMs: number;
  region: string;
  accountId: string;
}

/** A fresh context for an invocation of the route's function that starts now. */
function contextFor(route: Route, options: FunctionsOptions, started: Date): Context {
  const functionName = `currency-exchange-${route.function.id}`;
  const deadline = Date.now() + options.timeoutMs;
  const day = `${started.getUTCFullYear()}/${pad(started.getUTCMonth() + 1)}/${pad(started.getUTCDate())}`;
  return buildLambdaContext({
    functionName,
    awsRequestId: randomUUID(),
    logStreamName: `${day}/[$LATEST]${randomBytes(16).toString('hex')}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    region: options.region,
    accountId: options.accountId,
  });
}

/** The handler's result, or a rejection with the error Lambda would report (timeout included). */
async function withTimeout(run: () => Promise<unknown>, timeoutMs: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`Task timed out after ${timeoutMs / 1000} seconds`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([run(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Invokes routes' functions, each loaded once; `context` is what the invocation's logs name it by. */
export function createFunctions(options: FunctionsOptions) {
  const handlers = new Map<ApiFunctionSpec, Promise<LambdaHandler>>();
  const handlerFor = ({ function: fn }: Route) => {
    let handler = handlers.get(fn);
    if (!handler) {
      handler = options.loadHandler(fn);
      handlers.set(fn, handler);
      handler.catch(() => handlers.delete(fn));
    }
    return handler;
  };
  return {
    contextFor: (route: Route, started: Date) => contextFor(route, options, started),
    invoke: async (
      route: Route,
      event: APIGatewayProxyEventV2WithJWTAuthorizer,
      context: Context,
    ): Promise<unknown> => {
      const handler = await handlerFor(route);
      return withTimeout(() => Promise.resolve(handler(event, context)), options.timeoutMs);
    },
  };
}
