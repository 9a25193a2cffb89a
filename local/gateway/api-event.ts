/**
 * API Gateway HTTP API events (payload format 2.0) and Lambda contexts, as the deployed API hands
 * them to a function. The local gateway, the benchmark and the tests share this one builder, so
 * that a handler sees locally what it sees on AWS. It does no I/O and reads no clock and no
 * randomness, so callers pass times and ids in.
 */
import type { APIGatewayProxyEventV2WithJWTAuthorizer, Context } from 'aws-lambda';

/** API Gateway's default account and API id locally (the deployed ones differ, unseen by code). */
export const LOCAL_ACCOUNT_ID = '123456789012';
export const LOCAL_API_ID = 'localapi00';
export const LOCAL_REGION = 'us-east-1';
/** 2025-01-01T00:00:00Z: a fixed request time where the caller gives none (tests, benchmark). */
const DEFAULT_TIME_EPOCH = 1735689600000;

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
export const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** `12/Mar/2020:19:03:58 +0000`, as in requestContext.time. */
export function requestTime(date: Date): string {
  return (
    `${pad(date.getUTCDate())}/${MONTHS[date.getUTCMonth()]}/${date.getUTCFullYear()}:` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`
  );
}

/** The path a route key's template gives with these parameters (`{name}` and `{name+}`). */
export function pathOf(routeKey: string, pathParameters: Record<string, string> = {}): string {
  const template = routeKey.slice(routeKey.indexOf(' ') + 1);
  return template.replace(/\{([^}+]+)\+?\}/g, (whole, name: string) =>
    Object.hasOwn(pathParameters, name) ? encodeURIComponent(pathParameters[name]!) : whole,
  );
}

export interface ApiEventInput {
  /** `GET /transactions/{transaction_id}`: the matched route. */
  routeKey: string;
  /** Defaults to the route key's path with the path parameters filled in. */
  rawPath?: string;
  rawQueryString?: string;
  /** Lower-case names, repeated headers joined with commas; no `cookie` (see cookies). */
  headers?: Record<string, string>;
  cookies?: string[];
  queryStringParameters?: Record<string, string>;
  pathParameters?: Record<string, string>;
  /** The verified token's claims, in any JSON type: handed over as strings (claimToString). */
  claims?: Record<string, unknown>;
  /** The body as the event carries it: text, or base64 when isBase64Encoded. */
  body?: string;
  isBase64Encoded?: boolean;
  requestId?: string;
  timeEpoch?: number;
  sourceIp?: string;
  /** `HTTP/1.1` */
  protocol?: string;
  /** Defaults to the host header, else 127.0.0.1. */
  domainName?: string;
  accountId?: string;
  apiId?: string;
}

/**
 * The event of an authorized request. As API Gateway does: optional members are left out when
 * empty (cookies, query string parameters, path parameters, body), the authorizer's scopes are
 * null (no authorization scopes are configured on the routes).
 */
export function buildApiEvent(input: ApiEventInput): APIGatewayProxyEventV2WithJWTAuthorizer {
  const { routeKey, pathParameters = {}, queryStringParameters = {}, cookies = [] } = input;
  const headers = input.headers ?? {};
  const rawPath = input.rawPath ?? pathOf(routeKey, pathParameters);
  const timeEpoch = input.timeEpoch ?? DEFAULT_TIME_EPOCH;
  const domainName = input.domainName ?? headers.host ?? '127.0.0.1';
  const claims = Object.fromEntries(
    Object.entries(input.claims ?? {}).map(([name, value]) => [name, claimToString(value)]),
  );
  return {
    version: '2.0',
    routeKey,
    rawPath,
    rawQueryString: input.rawQueryString ?? '',
    ...(cookies.length ? { cookies } : {}),
    headers,
    ...(Object.keys(queryStringParameters).length ? { queryStringParameters } : {}),
    requestContext: {
      accountId: input.accountId ?? LOCAL_ACCOUNT_ID,
      apiId: input.apiId ?? LOCAL_API_ID,
      authorizer: { jwt: { claims, scopes: null } },
      domainName,
      domainPrefix: domainName.split('.')[0]!,
      http: {
        method: routeKey.slice(0, routeKey.indexOf(' ')),
        path: rawPath,
        protocol: input.protocol ?? 'HTTP/1.1',
        sourceIp: input.sourceIp ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: input.requestId ?? 'local',
      routeKey,
      stage: '$default',
      time: requestTime(new Date(timeEpoch)),
      timeEpoch,
    },
    ...(Object.keys(pathParameters).length ? { pathParameters } : {}),
    ...(input.body !== undefined ? { body: input.body } : {}),
    isBase64Encoded: input.isBase64Encoded ?? false,
  };
}

export interface LambdaContextInput {
  /** Defaults to `currency-exchange-local`. */
  functionName?: string;
  awsRequestId: string;
  /** `2025/01/01/[$LATEST]<hex>`; defaults to one for the time 0 with no suffix. */
  logStreamName?: string;
  getRemainingTimeInMillis: () => number;
  region?: string;
  accountId?: string;
}

const deprecated = () => {
  throw new Error('context.done/succeed/fail are not supported on Node.js 24 Lambda runtimes');
};

/** A Lambda context as the Node.js 24 runtime hands it over, for a function of 512 MB. */
export function buildLambdaContext(input: LambdaContextInput): Context {
  const functionName = input.functionName ?? 'currency-exchange-local';
  const region = input.region ?? LOCAL_REGION;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${region}:${input.accountId ?? LOCAL_ACCOUNT_ID}:function:${functionName}`,
    memoryLimitInMB: '512', // as lib/project-function.ts deploys it
    awsRequestId: input.awsRequestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: input.logStreamName ?? '1970/01/01/[$LATEST]',
    getRemainingTimeInMillis: input.getRemainingTimeInMillis,
    done: deprecated,
    fail: deprecated,
    succeed: deprecated,
  };
}
