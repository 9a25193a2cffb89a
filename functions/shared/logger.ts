/**
 * Structured JSON log lines (SPEC 4). Callers pass only operational fields: never names,
 * e-mails, tin, sss, id numbers, tokens, URLs with signatures or response bodies.
 */
export interface LogFields {
  level: 'INFO' | 'WARN' | 'ERROR';
  message: string;
  requestId?: string | undefined;
  route?: string | undefined;
  status?: number;
  latencyMs?: number;
  errorName?: string;
}

export function log(fields: LogFields): void {
  process.stdout.write(`${JSON.stringify({ timestamp: new Date().toISOString(), ...fields })}\n`);
}
