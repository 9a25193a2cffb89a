/**
 * The local gateway's two logs, in the deployed shapes: the access log (one line per request, as
 * lib/api.ts ACCESS_LOG_FIELDS has it) and the errors, as Lambda's JSON log format writes an
 * uncaught function error, or as the gateway reports its own failures.
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
