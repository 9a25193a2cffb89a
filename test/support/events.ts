/**
 * The tests' defaults for local/gateway/api-event.ts: an access token of a customer reader, and a context
 * with the deployed 10 s left.
 */
import type { ApiEvent } from '../../functions/shared/auth.ts';
import { buildApiEvent, buildLambdaContext } from '../../local/gateway/api-event.ts';

/** An access token's claims as the authorizer passes them, issued now to a test user in customer-readers. */
export function testClaims(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    token_use: 'access',
    sub: 'test-user-sub',
    username: 'test-user',
    iat: String(Math.floor(Date.now() / 1000)),
    'cognito:groups': '[customer-readers]',
    ...overrides,
  };
}

export function apiEvent(
  routeKey: string,
  pathParameters: Record<string, string>,
  claims: Record<string, string> = testClaims(),
): ApiEvent {
  return buildApiEvent({ routeKey, pathParameters, claims, requestId: 'test' });
}

export const lambdaContext = buildLambdaContext({
  awsRequestId: 'test-request',
  getRemainingTimeInMillis: () => 10_000,
});
