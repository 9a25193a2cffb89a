/**
 * The page's Cognito client and its sign-in: the steps every staff sign-in takes
 * (sign-in/steps.ts), against the stage's user pool (locally cognito-local), and sign-out's
 * revocation. Tokens are returned to the caller and kept nowhere else.
 */
import {
  CognitoIdentityProviderClient,
  RevokeTokenCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { SignInSteps } from '../sign-in/steps.ts';
import type { StaffAppConfig } from './config.ts';

export type { Step, Tokens } from '../sign-in/steps.ts';

function cognito(config: StaffAppConfig): CognitoIdentityProviderClient {
  return new CognitoIdentityProviderClient({
    region: config.region,
    ...(config.cognitoEndpoint ? { endpoint: config.cognitoEndpoint } : {}),
    // Sign-in calls are unsigned: the browser has no AWS credentials and needs none.
    credentials: { accessKeyId: '', secretAccessKey: '' },
  });
}

/** A sign-in of `username` from this page; the authenticator app lists it as "Staff page". */
export function pageSignIn(config: StaffAppConfig, username: string): SignInSteps {
  return new SignInSteps(cognito(config), config.userPoolClientId, username, 'Staff page');
}

/** Revokes a refresh token: neither it nor the access tokens it issued can be refreshed again. */
export async function revokeRefreshToken(config: StaffAppConfig, token: string): Promise<void> {
  await cognito(config).send(
    new RevokeTokenCommand({ ClientId: config.userPoolClientId, Token: token }),
  );
}
