/**
 * The local gateway's two logs, in the deployed shapes, so that a reader of one knows the other.
 * The access log has one line per request, with the fields of ACCESS_LOG_FIELDS in lib/api.ts.
 * The error log has each uncaught function error as Lambda's JSON log format writes it, and the
 * gateway's own failures.
 */

export interface AccessLogEntry {
  /** API Gateway's request id. */
  requestId: string;
  method: string;
  routeKey: string;
  status: number;
  started: number;
  /** The Lambda request id when a function ran, as the deployed access log's integrationRequestId. */
  integrationRequestId: string | undefined;
}

export function accessLogLine(entry: AccessLogEntry): string {
  const { requestId, method, routeKey, status, started, integrationRequestId } = entry;
  return JSON.stringify({
    requestId,
    method,
    routeKey,
    status,
    latencyMs: Date.now() - started,
    ...(integrationRequestId ? { integrationRequestId } : {}),
  });
}

/** A function error (thrown, rejected or timed out): the caller sees a 500, the log the error. */
export function functionErrorLine(
  error: unknown,
  ids: { awsRequestId: string; apiRequestId: string; routeKey: string },
): string {
  const e = error instanceof Error ? error : new Error(String(error));
  return JSON.stringify({
    level: 'ERROR',
    requestId: ids.awsRequestId,
    apiRequestId: ids.apiRequestId,
    routeKey: ids.routeKey,
    errorType: e.name,
    errorMessage: e.message,
    stack: e.stack?.split('\n'),
  });
}

export function malformedResponseLine(ids: {
  requestId: string;
  integrationRequestId: string;
  routeKey: string;
}): string {
  return JSON.stringify({
    level: 'ERROR',
    requestId: ids.requestId,
    integrationRequestId: ids.integrationRequestId,
    routeKey: ids.routeKey,
    message: 'malformed Lambda response',
  });
}

export function gatewayFailureLine(requestId: string, error: unknown): string {
  return JSON.stringify({
    level: 'ERROR',
    requestId,
    message: 'local gateway failure',
    error: String(error),
  });
}
