/** API Gateway v2 events as the JWT authorizer hands them to a function: claims as strings. */
import type { Context } from 'aws-lambda';
import type { ApiEvent } from '../../functions/shared/auth';

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
  return {
    version: '2.0',
    routeKey,
    rawPath: '/',
    rawQueryString: '',
    headers: {},
    pathParameters,
    isBase64Encoded: false,
    requestContext: { authorizer: { jwt: { claims, scopes: null } }, requestId: 'test' },
  } as unknown as ApiEvent;
}

export const lambdaContext = {
  awsRequestId: 'test-request',
  getRemainingTimeInMillis: () => 10_000,
} as unknown as Context;
