/**
 * An HTTP request as API Gateway turns it into a payload format 2.0 event. Headers are
 * lower-cased and joined, cookies are kept apart, and API Gateway's forwarding headers are added.
 * The query string is parsed, and the body is passed as text or as base64, by its content type.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda';
import type { JwtPayload } from 'aws-jwt-verify/jwt-model';
import { buildApiEvent } from './api-event.ts';
import type { RouteMatch } from './routing.ts';
import { decode } from './routing.ts';

const TEXT_TYPES =
  /^(text\/|application\/(json|xml|x-www-form-urlencoded|[a-z0-9.+-]*\+(json|xml))\b)/i;

/** `/path?query` split as API Gateway's rawPath and rawQueryString. */
export function splitUrl(rawUrl: string): { rawPath: string; rawQueryString: string } {
  const q = rawUrl.indexOf('?');
  return {
    rawPath: q < 0 ? rawUrl : rawUrl.slice(0, q),
    rawQueryString: q < 0 ? '' : rawUrl.slice(q + 1),
  };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Repeated names joined with commas (a query string's values as its headers' are). */
function queryParameters(rawQueryString: string): Record<string, string> {
  const parameters: Record<string, string> = {};
  for (const part of rawQueryString ? rawQueryString.split('&') : []) {
    if (!part) continue;
    const eq = part.indexOf('=');
    const name = decode(eq < 0 ? part : part.slice(0, eq));
    const value = eq < 0 ? '' : decode(part.slice(eq + 1));
    parameters[name] = name in parameters ? `${parameters[name]},${value}` : value;
  }
  return parameters;
}

/** The event's headers (without `cookie`) and cookies, with the headers API Gateway adds. */
function requestHeaders(req: IncomingMessage, sourceIp: string, started: number) {
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
  const cookies = cookieHeader ? cookieHeader.split(/;\s*/).filter(Boolean) : [];
  return { headers, cookies };
}

export interface RequestEventInput {
  match: RouteMatch;
  claims: JwtPayload;
  requestId: string;
  /** When the request arrived (ms since the epoch). */
  started: number;
  accountId: string;
  apiId: string;
}

/** Reads the request's body and builds the event the route's function is invoked with. */
export async function eventFromRequest(
  req: IncomingMessage,
  input: RequestEventInput,
): Promise<APIGatewayProxyEventV2WithJWTAuthorizer> {
  const body = await readBody(req);
  const sourceIp = (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
  const { headers, cookies } = requestHeaders(req, sourceIp, input.started);
  const { rawPath, rawQueryString } = splitUrl(req.url ?? '/');
  const textBody = !body.length || TEXT_TYPES.test(headers['content-type'] ?? 'text/plain');
  return buildApiEvent({
    routeKey: input.match.routeKey,
    rawPath,
    rawQueryString,
    headers,
    cookies,
    queryStringParameters: queryParameters(rawQueryString),
    pathParameters: input.match.pathParameters,
    claims: input.claims,
    ...(body.length ? { body: body.toString(textBody ? 'utf8' : 'base64') } : {}),
    isBase64Encoded: !textBody,
    requestId: input.requestId,
    timeEpoch: input.started,
    sourceIp,
    protocol: `HTTP/${req.httpVersion}`,
    accountId: input.accountId,
    apiId: input.apiId,
  });
}
