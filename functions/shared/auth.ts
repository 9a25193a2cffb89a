import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda';
import { ForbiddenError, UnauthorizedError } from './errors.ts';

export type ApiEvent = APIGatewayProxyEventV2WithJWTAuthorizer;

export function claimsOf(event: ApiEvent): Record<string, unknown> {
  return event.requestContext?.authorizer?.jwt?.claims ?? {};
}

/**
 * API Gateway's JWT authorizer accepts ID tokens as well as access tokens (it checks `aud` or
 * `client_id`); this API takes access tokens only.
 */
export function requireAccessToken(event: ApiEvent): void {
  if (claimsOf(event).token_use !== 'access') throw new UnauthorizedError();
}

/**
 * Groups as API Gateway passes them: claims arrive as strings, so the array claim
 * `cognito:groups` comes as `"[a b]"`, names separated by single spaces; a real array or a
 * single name is accepted too. Only spaces separate: a Cognito group name cannot contain
 * whitespace, but it can contain commas and brackets, so a group named
 * `x,customer-readers` must not read as two groups.
 */
export function groupsOf(event: ApiEvent): string[] {
  const raw = claimsOf(event)['cognito:groups'];
  if (Array.isArray(raw)) return raw.filter((g): g is string => typeof g === 'string');
  if (typeof raw !== 'string') return [];
  if (raw.startsWith('[') && raw.endsWith(']')) return raw.slice(1, -1).split(' ').filter(Boolean);
  return raw === '' ? [] : [raw];
}

export function requireGroup(event: ApiEvent, group: string): void {
  if (!groupsOf(event).includes(group)) throw new ForbiddenError();
}

/** Who is calling, from the token's claims: what the access state and the audit trail need. */
export interface Caller {
  /** The Cognito user's `sub`: the key of their access state (core/access-state.ts). */
  readonly sub: string;
  /** When the token was issued, epoch seconds (`iat`, whole seconds). */
  readonly issuedAt: number;
}

/**
 * The caller of a request the authorizer let through. A token without a `sub` or a whole-second
 * `iat` cannot be checked against the access state: refused (401), never read unchecked.
 */
export function callerOf(event: ApiEvent): Caller {
  const { sub, iat } = claimsOf(event);
  const issued = typeof iat === 'number' ? String(iat) : iat;
  if (
    typeof sub !== 'string' ||
    sub === '' ||
    typeof issued !== 'string' ||
    !/^[0-9]{1,12}$/.test(issued)
  )
    throw new UnauthorizedError();
  return { sub, issuedAt: Number(issued) };
}
