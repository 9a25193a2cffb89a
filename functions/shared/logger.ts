/**
 * Structured JSON log lines (SPEC 4, 7). Callers pass only operational fields: never names,
 * e-mails, tin, sss, id numbers, tokens, URLs with signatures or response bodies.
 *
 * Written to stdout as one JSON object a line, the same locally and in Lambda. Lambda's JSON log
 * format (lib/project-function.ts) passes such a line through as it is and filters it by `level`;
 * it adds the request id only to console.* output, so every line carries both ids itself:
 * `requestId` is the Lambda request id (the name Lambda's own JSON lines use for it) and
 * `apiRequestId` API Gateway's, the `requestId` of the access log.
 */
export interface LogFields {
  level: 'INFO' | 'WARN' | 'ERROR';
  message: string;
  /** Lambda request id (context.awsRequestId). */
  requestId: string;
  /** API Gateway request id (event.requestContext.requestId). */
  apiRequestId: string | undefined;
  route?: string | undefined;
  status?: number;
  latencyMs?: number;
  errorName?: string;
}

export function log(fields: LogFields): void {
  // Lambda sets the X-Ray trace header per invocation when tracing is active.
  const traceId = process.env._X_AMZN_TRACE_ID;
  process.stdout.write(
    `${JSON.stringify({ timestamp: new Date().toISOString(), ...fields, ...(traceId ? { traceId } : {}) })}\n`,
  );
}
