/**
 * Staff sign-in against the stage's user pool, as Cognito runs it with MFA required: password
 * (USER_PASSWORD_AUTH), then a new password on a first sign-in, then either TOTP enrolment
 * (MFA_SETUP) or a code (SOFTWARE_TOKEN_MFA). Each step answers with the next one; tokens are
 * returned to the caller and kept nowhere else.
 */
import {
  AssociateSoftwareTokenCommand,
  CognitoIdentityProviderClient,
  InitiateAuthCommand,
  RespondToAuthChallengeCommand,
  RevokeTokenCommand,
  VerifySoftwareTokenCommand,
  type AuthenticationResultType,
  type ChallengeNameType,
} from '@aws-sdk/client-cognito-identity-provider';
import type { StaffAppConfig } from './config';

export interface Tokens {
  readonly accessToken: string;
  readonly refreshToken: string;
}

/** Where a sign-in stands after each answer. */
export type Step =
  | { readonly kind: 'signed-in'; readonly tokens: Tokens }
  | { readonly kind: 'new-password'; readonly session: string }
  | { readonly kind: 'enrol'; readonly session: string; readonly secret: string }
  | { readonly kind: 'code'; readonly session: string };

function cognito(config: StaffAppConfig): CognitoIdentityProviderClient {
  return new CognitoIdentityProviderClient({
    region: config.region,
    ...(config.cognitoEndpoint ? { endpoint: config.cognitoEndpoint } : {}),
    // Sign-in calls are unsigned: the browser has no AWS credentials and needs none.
    credentials: { accessKeyId: '', secretAccessKey: '' },
  });
}

export class SignIn {
  private readonly client: CognitoIdentityProviderClient;

  constructor(
    private readonly config: StaffAppConfig,
    readonly username: string,
  ) {
    this.client = cognito(config);
  }

  async password(password: string): Promise<Step> {
    const answer = await this.client.send(
      new InitiateAuthCommand({
        AuthFlow: 'USER_PASSWORD_AUTH',
        ClientId: this.config.userPoolClientId,
        AuthParameters: { USERNAME: this.username, PASSWORD: password },
      }),
    );
    return this.next(answer.ChallengeName, answer.Session, answer.AuthenticationResult);
  }

  async newPassword(session: string, password: string): Promise<Step> {
    return this.respond('NEW_PASSWORD_REQUIRED', session, { NEW_PASSWORD: password });
  }

  async code(session: string, code: string): Promise<Step> {
    return this.respond('SOFTWARE_TOKEN_MFA', session, { SOFTWARE_TOKEN_MFA_CODE: code });
  }

  /** Confirms the enrolment with a first code, then completes the sign-in it was part of. */
  async enrol(session: string, code: string): Promise<Step> {
    const verified = await this.client.send(
      new VerifySoftwareTokenCommand({
        Session: session,
        UserCode: code,
        FriendlyDeviceName: 'Staff page',
      }),
    );
    if (verified.Status !== 'SUCCESS' || !verified.Session)
      throw new Error('The code was not accepted.');
    return this.respond('MFA_SETUP', verified.Session, {});
  }

  private async respond(
    challenge: ChallengeNameType,
    session: string,
    responses: Record<string, string>,
  ): Promise<Step> {
    const answer = await this.client.send(
      new RespondToAuthChallengeCommand({
        ClientId: this.config.userPoolClientId,
        ChallengeName: challenge,
        Session: session,
        ChallengeResponses: { USERNAME: this.username, ...responses },
      }),
    );
    return this.next(answer.ChallengeName, answer.Session, answer.AuthenticationResult);
  }

  private async next(
    challenge: ChallengeNameType | undefined,
    session: string | undefined,
    result: AuthenticationResultType | undefined,
  ): Promise<Step> {
    if (result?.AccessToken && result.RefreshToken)
      return {
        kind: 'signed-in',
        tokens: { accessToken: result.AccessToken, refreshToken: result.RefreshToken },
      };
    if (!session) throw new Error('Cognito answered without a session.');
    if (challenge === 'NEW_PASSWORD_REQUIRED') return { kind: 'new-password', session };
    if (challenge === 'SOFTWARE_TOKEN_MFA') return { kind: 'code', session };
    if (challenge === 'MFA_SETUP') {
      const associated = await this.client.send(
        new AssociateSoftwareTokenCommand({ Session: session }),
      );
      if (!associated.SecretCode || !associated.Session)
        throw new Error('Cognito gave no key to enrol.');
      return { kind: 'enrol', session: associated.Session, secret: associated.SecretCode };
    }
    throw new Error(`This page cannot answer the sign-in step ${String(challenge)}.`);
  }
}

/** Revokes a refresh token: neither it nor the access tokens it issued can be refreshed again. */
export async function revokeRefreshToken(config: StaffAppConfig, token: string): Promise<void> {
  await cognito(config).send(
    new RevokeTokenCommand({ ClientId: config.userPoolClientId, Token: token }),
  );
}
