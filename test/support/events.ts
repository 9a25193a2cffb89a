/** API Gateway v2 events as the JWT authorizer hands them to a function: claims as strings. */
import type { Context } from 'aws-lambda';
import type { ApiEvent } from '../../functions/shared/auth';

export function apiEvent(
  routeKey: string,
  pathParameters: Record<string, string>,
  claims: Record<string, string> = { token_use: 'access', 'cognito:groups': '[customer-readers]' },
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
