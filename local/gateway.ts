/**
 * A local stand-in for the deployed API Gateway HTTP API: routes from lib/routes.ts, a JWT
 * (Cognito) authorizer in front of every route, payload format 2.0 events, and the route's Lambda
 * handler — the very module that is deployed — imported and invoked in-process.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, Context } from 'aws-lambda';
import { JwtVerifier } from 'aws-jwt-verify';
import type { Jwks } from 'aws-jwt-verify/jwk';
import type { JwtPayload } from 'aws-jwt-verify/jwt-model';
import { parse as parseYaml } from 'yaml';
import { routes as deployedRoutes, type Route } from '../lib/routes';
import { DOCS_ASSETS, DOCS_PATH, docsPage } from './docs';
import { LOCALHOST } from './net';

export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The API's contract, served by the local gateway (only) as GET /openapi.json. */
export const OPENAPI_FILE = join(PROJECT_ROOT, 'openapi.yaml');
export const OPENAPI_PATH = '/openapi.json';

interface LocalPage {
  contentType: string;
  headers: Record<string, string>;
  body: () => Promise<string | Buffer>;
}
const NOSNIFF = { 'x-content-type-options': 'nosniff' };

export type LambdaHandler = (
  event: APIGatewayProxyEventV2WithJWTAuthorizer,
  context: Context,
) => unknown;
export type HandlerLoader = (route: Route) => Promise<LambdaHandler>;

/** Imports the route's entry file (relative to the project root) and returns its `handler`. */
export const importHandler: HandlerLoader = async (route) => {
  const module = (await import(pathToFileURL(join(PROJECT_ROOT, route.entry)).href)) as {
    handler?: unknown;
  };
  if (typeof module.handler !== 'function')
    throw new Error(`${route.entry} does not export a handler function`);
  return module.handler as LambdaHandler;
};

export interface GatewayOptions {
  /** Port on 127.0.0.1; 0 = any free port. */
  port: number;
  /** The JWT authorizer's configuration, as in the deployed stack. */
  authorizer: {
    /** Expected `iss`: the user pool's issuer URL. */
    issuer: string;
    /** App client ids; a token's `aud` (or, without `aud`, its `client_id`) must be one of them. */
    audience: readonly string[];
    /** Fetched once at start-up (plain HTTP is fine: aws-jwt-verify is handed the keys). */
    jwksUri: string;
  };
  /** Defaults to lib/routes.ts. */
  routes?: readonly Route[];
  /** Defaults to importing the route's entry file. */
  loadHandler?: HandlerLoader;
  /** Set on process.env before any handler module is imported (handlers read it at import). */
  env?: Record<string, string | undefined>;
  /** One line per request; defaults to stdout. */
  log?: (line: string) => void;
  /** Function errors (as Lambda would log them); defaults to stderr. */
  errorLog?: (line: string) => void;
  /**
   * Served without a token as GET /openapi.json, with interactive docs at GET /docs (local
   * only); false = neither.
   */
  openApiFile?: string | false;
  /** The Lambda function timeout (10 s deployed): a slower invocation is answered with a 500. */
  functionTimeoutMs?: number;
  region?: string;
  accountId?: string;
  apiId?: string;
}

export interface Gateway {
  /** e.g. http://127.0.0.1:3000 */
  readonly url: string;
  stop(): Promise<void>;
}

interface CompiledRoute {
  route: Route;
  routeKey: string;
  pattern: RegExp;
  names: string[];
  literals: number;
}

function compile(route: Route): CompiledRoute {
  const names: string[] = [];
  let literals = 0;
  const source = route.path
    .split('/')
    .map((segment) => {
      const param = /^\{([A-Za-z0-9_.:-]+)(\+?)\}$/.exec(segment);
      if (!param) {
        if (segment) literals += 1;
        return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      }
      names.push(param[1]!);
      return param[2] ? '(.+)' : '([^/]+)';
    })
    .join('/');
  return {
    route,
    routeKey: `${route.method} ${route.path}`,
    pattern: new RegExp(`^${source}$`),
    names,
    literals,
  };
}

function decode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * A claim as API Gateway hands it to the function: always a string. Numbers are decimal text,
 * arrays and objects are rendered the way Go's fmt prints them (observed on AWS, e.g.
 * `cognito:groups` = `"[customer-readers other-group]"`).
 */
export function claimToString(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number')
    return Number.isInteger(value) ? BigInt(value).toString() : String(value);
  if (typeof value === 'boolean') return String(value);
  if (value === null || value === undefined) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(claimToString).join(' ')}]`;
  if (typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${key}:${claimToString((value as Record<string, unknown>)[key])}`);
    return `map[${entries.join(' ')}]`;
  }
  return String(value);
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** `12/Mar/2020:19:03:58 +0000`, as in requestContext.time. */
function requestTime(date: Date): string {
  return (
    `${pad(date.getUTCDate())}/${MONTHS[date.getUTCMonth()]}/${date.getUTCFullYear()}:` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`
  );
}

const TEXT_TYPES =
  /^(text\/|application\/(json|xml|x-www-form-urlencoded|[a-z0-9.+-]*\+(json|xml))\b)/i;

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(
  res: ServerResponse,
  status: number,
  headers: Record<string, string | string[]>,
  body: Buffer | string,
) {
  const payload = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  res.writeHead(status, { ...headers, 'content-length': String(payload.length) });
  res.end(payload);
}

function jsonMessage(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string>,
) {
  send(
    res,
    status,
    { 'content-type': 'application/json', ...headers },
    JSON.stringify({ message }),
  );
}

class Unauthorized extends Error {}

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const region = options.region ?? 'us-east-1';
  const accountId = options.accountId ?? '123456789012';
  const apiId = options.apiId ?? 'localapi00';
  const timeoutMs = options.functionTimeoutMs ?? 10_000;
  const log = options.log ?? ((line: string) => console.log(line));
  const errorLog = options.errorLog ?? ((line: string) => process.stderr.write(`${line}\n`));
  const loadHandler = options.loadHandler ?? importHandler;
  const compiled = (options.routes ?? deployedRoutes)
    .map(compile)
    .sort((a, b) => b.literals - a.literals);
  const audience = new Set(options.authorizer.audience);
  const openApiFile = options.openApiFile ?? OPENAPI_FILE;
  let openApiJson: Promise<string> | undefined;
  const openApi = (file: string): Promise<string> => {
    openApiJson ??= readFile(file, 'utf8').then((text) => JSON.stringify(parseYaml(text)));
    return openApiJson.catch((error: unknown) => {
      openApiJson = undefined;
      throw error;
    });
  };
  /**
   * The local stack's own pages, not routes of the deployed API, served without a token: the
   * contract as JSON, the docs page and its files (these with headers of their own types).
   */
  const localPage = (file: string, path: string): LocalPage | undefined => {
    if (path === OPENAPI_PATH)
      return {
        contentType: 'application/json; charset=utf-8',
        headers: {},
        body: () => openApi(file),
      };
    if (path === DOCS_PATH)
      return {
        contentType: 'text/html; charset=utf-8',
        headers: NOSNIFF,
        body: () => docsPage({ kind: 'local' }),
      };
    const asset = Object.hasOwn(DOCS_ASSETS, path) ? DOCS_ASSETS[path] : undefined;
    return (
      asset && {
        contentType: asset.contentType,
        headers: NOSNIFF,
        body: () => readFile(asset.file),
      }
    );
  };

  if (options.env) {
    for (const [name, value] of Object.entries(options.env)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }

  // The JWT authorizer. aws-jwt-verify only downloads JWKS over HTTPS, so the keys are fetched
  // here and handed over; verifySync then never goes to the network.
  const response = await fetch(options.authorizer.jwksUri);
  if (!response.ok)
    throw new Error(
      `Cannot fetch the JWKS from ${options.authorizer.jwksUri}: HTTP ${response.status}`,
    );
  const jwks = (await response.json()) as Jwks;
  const verifier = JwtVerifier.create({
    issuer: options.authorizer.issuer,
    jwksUri: options.authorizer.jwksUri,
    audience: null, // checked below: `aud`, or `client_id` when there is no `aud`, as API Gateway does
  });
  verifier.cacheJwks(jwks);

  const authorize = (authorization: string | undefined): JwtPayload => {
    // The identity source is the Authorization header; the "Bearer " prefix is optional.
    const token = (authorization ?? '').replace(/^Bearer\s+/i, '').trim();
    if (!token) throw new Unauthorized('no token');
    try {
      return verifier.verifySync(token, {
        customJwtCheck: ({ header, payload }) => {
          const now = Date.now() / 1000;
          if (header.alg !== 'RS256') throw new Error('alg');
          if (typeof payload.exp !== 'number') throw new Error('exp');
          if (typeof payload.iat === 'number' && payload.iat > now) throw new Error('iat');
          const aud = payload.aud;
          const matches =
            aud !== undefined
              ? (Array.isArray(aud) ? aud : [aud]).some((a) => audience.has(a))
              : typeof payload.client_id === 'string' && audience.has(payload.client_id);
          if (!matches) throw new Error('audience');
        },
      });
    } catch {
      throw new Unauthorized('invalid token');
    }
  };

  const handlers = new Map<Route, Promise<LambdaHandler>>();
  const handlerFor = (route: Route) => {
    let handler = handlers.get(route);
    if (!handler) {
      handler = loadHandler(route);
      handlers.set(route, handler);
      // A failed init is retried on the next invocation, as Lambda does.
      handler.catch(() => handlers.delete(route));
    }
    return handler;
  };

  const serve = async (req: IncomingMessage, res: ServerResponse) => {
    const started = Date.now();
    const requestId = randomBytes(11).toString('base64');
    const method = req.method ?? 'GET';
    const rawUrl = req.url ?? '/';
    const q = rawUrl.indexOf('?');
    const rawPath = q < 0 ? rawUrl : rawUrl.slice(0, q);
    const rawQueryString = q < 0 ? '' : rawUrl.slice(q + 1);
    const common = { 'apigw-requestid': requestId };
    let routeKey = '-';
    let status = 500;
    /** The Lambda request id of the invocation, as the deployed access log's integrationRequestId. */
    let integrationRequestId: string | undefined;
    try {
      const page =
        openApiFile && (method === 'GET' || method === 'HEAD')
          ? localPage(openApiFile, rawPath)
          : undefined;
      if (page) {
        routeKey = `${method} ${rawPath}`;
        const body = await page.body();
        status = 200;
        send(
          res,
          status,
          {
            'content-type': page.contentType,
            'cache-control': 'no-store',
            ...page.headers,
            ...common,
          },
          method === 'HEAD' ? '' : body,
        );
        return;
      }
      let match: { entry: CompiledRoute; values: string[] } | undefined;
      for (const entry of compiled) {
        const m = entry.pattern.exec(rawPath);
        if (m && entry.route.method === method) {
          match = { entry, values: m.slice(1) };
          break;
        }
      }
      if (!match) {
        status = 404;
        jsonMessage(res, status, 'Not Found', common);
        return;
      }
      const { entry, values } = match;
      routeKey = entry.routeKey;

      let claims: JwtPayload;
      try {
        claims = authorize(req.headers.authorization);
      } catch {
        status = 401;
        jsonMessage(res, status, 'Unauthorized', { ...common, 'www-authenticate': 'Bearer' });
        return;
      }

      const body = await readBody(req);
      const now = new Date(started);
      const sourceIp = (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
      const headers: Record<string, string> = {};
      for (let i = 0; i < req.rawHeaders.length; i += 2) {
        const name = req.rawHeaders[i]!.toLowerCase();
        const value = req.rawHeaders[i + 1]!;
        headers[name] = name in headers ? `${headers[name]},${value}` : value;
      }
      const cookieHeader = headers.cookie;
      delete headers.cookie;
      headers['x-forwarded-for'] = headers['x-forwarded-for']
        ? `${headers['x-forwarded-for']}, ${sourceIp}`
        : sourceIp;
      headers['x-forwarded-port'] = String(req.socket.localPort ?? '');
      headers['x-forwarded-proto'] = 'http';
      headers['x-amzn-trace-id'] =
        `Root=1-${Math.floor(started / 1000).toString(16)}-${randomBytes(12).toString('hex')}`;
      const domainName = headers.host ?? `${LOCALHOST}`;

      const queryStringParameters: Record<string, string> = {};
      for (const part of rawQueryString ? rawQueryString.split('&') : []) {
        if (!part) continue;
        const eq = part.indexOf('=');
        const name = decode(eq < 0 ? part : part.slice(0, eq));
        const value = eq < 0 ? '' : decode(part.slice(eq + 1));
        queryStringParameters[name] =
          name in queryStringParameters ? `${queryStringParameters[name]},${value}` : value;
      }
      const pathParameters = Object.fromEntries(
        entry.names.map((name, i) => [name, decode(values[i]!)]),
      );
      const stringClaims = Object.fromEntries(
        Object.entries(claims).map(([name, value]) => [name, claimToString(value)]),
      );
      const textBody = !body.length || TEXT_TYPES.test(headers['content-type'] ?? 'text/plain');

      const event: APIGatewayProxyEventV2WithJWTAuthorizer = {
        version: '2.0',
        routeKey,
        rawPath,
        rawQueryString,
        ...(cookieHeader ? { cookies: cookieHeader.split(/;\s*/).filter(Boolean) } : {}),
        headers,
        ...(Object.keys(queryStringParameters).length ? { queryStringParameters } : {}),
        requestContext: {
          accountId,
          apiId,
          authorizer: {
            // No authorization scopes are configured on the routes, so API Gateway passes null.
            jwt: { claims: stringClaims, scopes: null },
          },
          domainName,
          domainPrefix: domainName.split('.')[0]!,
          http: {
            method,
            path: rawPath,
            protocol: `HTTP/${req.httpVersion}`,
            sourceIp,
            userAgent: headers['user-agent'] ?? '',
          },
          requestId,
          routeKey,
          stage: '$default',
          time: requestTime(now),
          timeEpoch: started,
        },
        ...(entry.names.length ? { pathParameters } : {}),
        ...(body.length ? { body: body.toString(textBody ? 'utf8' : 'base64') } : {}),
        isBase64Encoded: !textBody,
      };

      const functionName = `currency-exchange-${entry.route.id}`;
      const deadline = Date.now() + timeoutMs;
      const day = `${now.getUTCFullYear()}/${pad(now.getUTCMonth() + 1)}/${pad(now.getUTCDate())}`;
      const deprecated = () => {
        throw new Error(
          'context.done/succeed/fail are not supported on Node.js 24 Lambda runtimes',
        );
      };
      const context: Context = {
        callbackWaitsForEmptyEventLoop: true,
        functionName,
        functionVersion: '$LATEST',
        invokedFunctionArn: `arn:aws:lambda:${region}:${accountId}:function:${functionName}`,
        memoryLimitInMB: '512', // as lib/api-function.ts deploys it
        awsRequestId: (integrationRequestId = randomUUID()),
        logGroupName: `/aws/lambda/${functionName}`,
        logStreamName: `${day}/[$LATEST]${randomBytes(16).toString('hex')}`,
        getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
        done: deprecated,
        fail: deprecated,
        succeed: deprecated,
      };

      let result: unknown;
      try {
        const handler = await handlerFor(entry.route);
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`Task timed out after ${timeoutMs / 1000} seconds`)),
            timeoutMs,
          );
        });
        try {
          result = await Promise.race([Promise.resolve(handler(event, context)), timeout]);
        } finally {
          clearTimeout(timer);
        }
      } catch (error) {
        // Like a Lambda function error: the caller sees API Gateway's 500, the log the error.
        const e = error instanceof Error ? error : new Error(String(error));
        // As Lambda's JSON log format writes an uncaught error: the Lambda request id.
        errorLog(
          JSON.stringify({
            level: 'ERROR',
            requestId: context.awsRequestId,
            apiRequestId: requestId,
            routeKey,
            errorType: e.name,
            errorMessage: e.message,
            stack: e.stack?.split('\n'),
          }),
        );
        status = 500;
        jsonMessage(res, status, 'Internal Server Error', common);
        return;
      }

      const out = toHttpResponse(result);
      if (!out) {
        errorLog(
          JSON.stringify({
            level: 'ERROR',
            requestId,
            integrationRequestId,
            routeKey,
            message: 'malformed Lambda response',
          }),
        );
        status = 500;
        jsonMessage(res, status, 'Internal Server Error', common);
        return;
      }
      status = out.statusCode;
      send(res, out.statusCode, { ...out.headers, ...common }, out.body);
    } catch (error) {
      errorLog(
        JSON.stringify({
          level: 'ERROR',
          requestId,
          message: 'local gateway failure',
          error: String(error),
        }),
      );
      status = 500;
      if (!res.headersSent) jsonMessage(res, status, 'Internal Server Error', common);
      else res.end();
    } finally {
      // The access log: API Gateway's request id, and the Lambda request id when a function ran
      // (lib/api.ts ACCESS_LOG_FIELDS has both under the same names).
      log(
        JSON.stringify({
          requestId,
          method,
          routeKey,
          status,
          latencyMs: Date.now() - started,
          ...(integrationRequestId ? { integrationRequestId } : {}),
        }),
      );
    }
  };

  const server: Server = createServer((req, res) => void serve(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, LOCALHOST, () => resolve());
  });
  const address = server.address();
  if (!address || typeof address !== 'object') throw new Error('gateway has no address');

  return {
    url: `http://${LOCALHOST}:${address.port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const DROPPED_HEADERS = new Set([
  'content-length',
  'transfer-encoding',
  'connection',
  'apigw-requestid',
]);

/**
 * A payload format 2.0 function result as API Gateway turns it into an HTTP response; undefined
 * for a malformed result (API Gateway answers 500).
 */
export function toHttpResponse(
  result: unknown,
): { statusCode: number; headers: Record<string, string | string[]>; body: Buffer } | undefined {
  const isObject = typeof result === 'object' && result !== null && !Array.isArray(result);
  if (!isObject || !('statusCode' in result)) {
    // No statusCode: the whole result is the JSON body of a 200.
    const body = typeof result === 'string' ? result : JSON.stringify(result ?? null);
    return {
      statusCode: 200,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(body ?? 'null'),
    };
  }
  const r = result as {
    statusCode: unknown;
    headers?: unknown;
    cookies?: unknown;
    body?: unknown;
    isBase64Encoded?: unknown;
  };
  const statusCode = Number(r.statusCode);
  if (!Number.isInteger(statusCode) || statusCode < 100 || statusCode > 599) return undefined;
  const headers: Record<string, string | string[]> = {};
  if (typeof r.headers === 'object' && r.headers !== null) {
    for (const [name, value] of Object.entries(r.headers as Record<string, unknown>)) {
      const lower = name.toLowerCase();
      if (DROPPED_HEADERS.has(lower) || value === undefined || value === null) continue;
      headers[lower] = String(value);
    }
  }
  if (Array.isArray(r.cookies) && r.cookies.length) headers['set-cookie'] = r.cookies.map(String);
  const text = r.body === undefined || r.body === null ? '' : String(r.body);
  const body = r.isBase64Encoded === true ? Buffer.from(text, 'base64') : Buffer.from(text, 'utf8');
  return { statusCode, headers, body };
}
