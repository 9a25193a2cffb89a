/** HTTP responses of the local gateway: its own JSON messages and the functions' results. */
import type { ServerResponse } from 'node:http';

export type ResponseHeaders = Record<string, string | string[]>;

export function send(
  res: ServerResponse,
  status: number,
  headers: ResponseHeaders,
  body: Buffer | string,
): void {
  const payload = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  res.writeHead(status, { ...headers, 'content-length': String(payload.length) });
  res.end(payload);
}

/** API Gateway's own answers: `{"message":"Not Found"}` and the like. */
export function jsonMessage(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string>,
): void {
  send(
    res,
    status,
    { 'content-type': 'application/json', ...headers },
    JSON.stringify({ message }),
  );
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
): { statusCode: number; headers: ResponseHeaders; body: Buffer } | undefined {
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
  const headers: ResponseHeaders = {};
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
