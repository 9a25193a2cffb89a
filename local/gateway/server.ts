/**
 * The local gateway's request handling, step by step in API Gateway's order. The rig's own pages
 * come first, then the route, the JWT authorizer, the function's event and invocation, and its
 * response. Every request ends with one access log line.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JwtPayload } from 'aws-jwt-verify/jwt-model';
import type { Authorize } from './authorizer.ts';
import type { createFunctions } from './lambda.ts';
import {
  accessLogLine,
  functionErrorLine,
  gatewayFailureLine,
  malformedResponseLine,
} from './logs.ts';
import type { LocalPage } from './pages.ts';
import { eventFromRequest, splitUrl } from './request.ts';
import { jsonMessage, send, toHttpResponse } from './response.ts';
import type { RouteMatch } from './routing.ts';

export interface ServerDeps {
  /** undefined: no pages of its own (openApiFile false). */
  pages: ((path: string) => LocalPage | undefined) | undefined;
  router: (method: string, rawPath: string) => RouteMatch | undefined;
  authorize: Authorize;
  functions: ReturnType<typeof createFunctions>;
  log: (line: string) => void;
  errorLog: (line: string) => void;
  accountId: string;
  apiId: string;
}

/** One request in flight: what its access log line will say. */
interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  started: number;
  requestId: string;
  method: string;
  rawPath: string;
  /** Headers on every answer. */
  common: Record<string, string>;
  routeKey: string;
  status: number;
  integrationRequestId: string | undefined;
}

function begin(req: IncomingMessage, res: ServerResponse): Exchange {
  const requestId = randomBytes(11).toString('base64');
  return {
    req,
    res,
    started: Date.now(),
    requestId,
    method: req.method ?? 'GET',
    rawPath: splitUrl(req.url ?? '/').rawPath,
    common: { 'apigw-requestid': requestId },
    routeKey: '-',
    status: 500,
    integrationRequestId: undefined,
  };
}

/** One of API Gateway's own JSON answers. */
function reply(x: Exchange, status: number, message: string, headers: Record<string, string> = {}) {
  x.status = status;
  jsonMessage(x.res, status, message, { ...x.common, ...headers });
}

async function servePage(x: Exchange, page: LocalPage): Promise<void> {
  x.routeKey = `${x.method} ${x.rawPath}`;
  const body = await page.body();
  x.status = 200;
  const headers = {
    'content-type': page.contentType,
    'cache-control': 'no-store',
    ...page.headers,
    ...x.common,
  };
  send(x.res, x.status, headers, x.method === 'HEAD' ? '' : body);
}

/** The route's function invoked with the request's event, its result as the HTTP response. */
async function integrate(deps: ServerDeps, x: Exchange, match: RouteMatch, claims: JwtPayload) {
  const event = await eventFromRequest(x.req, {
    match,
    claims,
    requestId: x.requestId,
    started: x.started,
    accountId: deps.accountId,
    apiId: deps.apiId,
  });
  const context = deps.functions.contextFor(match.route, new Date(x.started));
  x.integrationRequestId = context.awsRequestId;
  let result: unknown;
  try {
    result = await deps.functions.invoke(match.route, event, context);
  } catch (error) {
    const ids = { awsRequestId: context.awsRequestId, apiRequestId: x.requestId };
    deps.errorLog(functionErrorLine(error, { ...ids, routeKey: x.routeKey }));
    return reply(x, 500, 'Internal Server Error');
  }
  const out = toHttpResponse(result);
  if (!out) {
    const ids = { requestId: x.requestId, integrationRequestId: context.awsRequestId };
    deps.errorLog(malformedResponseLine({ ...ids, routeKey: x.routeKey }));
    return reply(x, 500, 'Internal Server Error');
  }
  x.status = out.statusCode;
  send(x.res, out.statusCode, { ...out.headers, ...x.common }, out.body);
}

async function route(deps: ServerDeps, x: Exchange): Promise<void> {
  const page =
    deps.pages && (x.method === 'GET' || x.method === 'HEAD') ? deps.pages(x.rawPath) : undefined;
  if (page) return servePage(x, page);
  const match = deps.router(x.method, x.rawPath);
  if (!match) return reply(x, 404, 'Not Found');
  x.routeKey = match.routeKey;
  const claims = deps.authorize(x.req.headers.authorization);
  if (!claims) return reply(x, 401, 'Unauthorized', { 'www-authenticate': 'Bearer' });
  return integrate(deps, x, match, claims);
}

/** The HTTP server's request listener. */
export function createRequestListener(deps: ServerDeps) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const x = begin(req, res);
    try {
      await route(deps, x);
    } catch (error) {
      deps.errorLog(gatewayFailureLine(x.requestId, error));
      x.status = 500;
      if (!res.headersSent) jsonMessage(res, x.status, 'Internal Server Error', x.common);
      else res.end();
    } finally {
      deps.log(accessLogLine(x));
    }
  };
}
