/**
 * The tests' defaults for local/api-event.ts: an access token of a customer reader, and a context
 * with the deployed 10 s left.
 */
import type { ApiEvent } from '../../functions/shared/auth';
import { buildApiEvent, buildLambdaContext } from '../../local/api-event';

export function apiEvent(
  routeKey: string,
  pathParameters: Record<string, string>,
  claims: Record<string, string> = { token_use: 'access', 'cognito:groups': '[customer-readers]' },
): ApiEvent {
  return buildApiEvent({ routeKey, pathParameters, claims, requestId: 'test' });
}

export const lambdaContext = buildLambdaContext({
  awsRequestId: 'test-request',
  getRemainingTimeInMillis: () => 10_000,
});
