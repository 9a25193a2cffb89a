/**
 * The audit trail (SPEC 8): exactly one event per request that reaches a function, whatever its
 * outcome, saying who asked for which record and what they got; never a field of the record.
 * Deployed, an event is a JSON line on stdout, kept in the function's log group for 1,827 days
 * (lib/audit.ts reads them: saved queries, top readers, the budget alarm); the local rig also
 * keeps them under .local/ for `npm run audit`.
 */
import type { Context } from 'aws-lambda';
import type { EntityDescriptor } from '../../core/entities.ts';
import { claimsOf, groupsOf, type ApiEvent } from './auth.ts';

export interface AuditEvent {
  timestamp: string;
  level: 'INFO';
  message: 'audit';
  /** Lambda request id. */
  requestId: string;
  /** API Gateway request id (the access log's `requestId`). */
  apiRequestId: string | null;
  /** e.g. `GET /customers/{customer_id}` */
  route: string | null;
  entity: string;
  /** The id asked for, when it is a valid one (a malformed path value is not repeated). */
  recordId: string | null;
  /**
   * A lookup's kind (SPEC 10): `receipt_no`, `tin`, `sss`, `id_no`, `name`, or `customer_id`
   * (a customer's transactions, `recordId` the customer's id); never the value searched for.
   */
  lookup?: string | null;
  /** The ids of the summaries a lookup returned. */
  recordIds?: string[];
  /**
   * Records the request read (SPEC 8's "how many"): 1 for a GET, a lookup's summaries (at least
   * 1, as its budget counts). The top readers add these up, so a lookup of a hundred names
   * weighs a hundred GETs.
   */
  reads: number;
  status: number;
  sub: string | null;
  username: string | null;
  groups: string[];
  sourceIp: string | null;
  userAgent: string | null;
}

export type AuditSink = (event: AuditEvent) => void;

/** Deployed: one JSON line on stdout, which Lambda puts in the function's log group. */
export const stdoutAudit: AuditSink = (event) => {
  process.stdout.write(`${JSON.stringify(event)}\n`);
};

const text = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' ? value : null;

export function auditEvent(
  entity: EntityDescriptor,
  event: ApiEvent,
  context: Context,
  status: number,
  /** The path's id, when it is a valid one (functions/shared/record-handler.ts parses it). */
  id: bigint | undefined,
  /** A lookup's kind (null when its parameters were refused) and the ids it returned. */
  lookup?: { kind: string | null; returned: readonly bigint[] },
): AuditEvent {
  const claims = claimsOf(event);
  const http = event.requestContext?.http;
  return {
    timestamp: new Date().toISOString(),
    level: 'INFO',
    message: 'audit',
    requestId: context.awsRequestId,
    apiRequestId: text(event.requestContext?.requestId),
    route: text(event.routeKey),
    entity: entity.name,
    recordId: id === undefined ? null : id.toString(),
    status,
    sub: text(claims.sub),
    // Access tokens carry `username`; ID tokens (refused, and audited) `cognito:username`.
    username: text(claims.username) ?? text(claims['cognito:username']),
    groups: groupsOf(event),
    sourceIp: text(http?.sourceIp),
    userAgent: text(http?.userAgent),
    reads: lookup ? Math.max(1, lookup.returned.length) : 1,
    ...(lookup && { lookup: lookup.kind, recordIds: lookup.returned.map(String) }),
  };
}
