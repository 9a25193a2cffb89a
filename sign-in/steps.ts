/**
 * A staff sign-in as Cognito runs it with MFA required (lib/identity.ts), one step at a time:
 * USER_PASSWORD_AUTH, then NEW_PASSWORD_REQUIRED on a first sign-in, then the second factor:
 * SOFTWARE_TOKEN_MFA (a code of the user's TOTP app) or, for a user without one yet, MFA_SETUP
 * (AssociateSoftwareToken and VerifySoftwareToken with the challenge's Session, then
 * RespondToAuthChallenge MFA_SETUP). A password alone never yields tokens. Each call answers with
 * the next step. The staff page drives it by hand (staff-app/main.ts); the tools through
 * signInWithTotp (./flow.ts). Only the Cognito client here: it runs in browsers too.
 */
import {
  AssociateSoftwareTokenCommand,
  InitiateAuthCommand,
  RespondToAuthChallengeCommand,
  VerifySoftwareTokenCommand,
  type AuthenticationResultType,
  type ChallengeNameType,
  type CognitoIdentityProviderClient,
} from '@aws-sdk/client-cognito-identity-provider';

export interface Tokens {
  readonly accessToken: string;
  readonly idToken: string;
  readonly refreshToken: string;
}

/** Where a sign-in stands after each answer. */
export type Step =
  | { readonly kind: 'signed-in'; readonly tokens: Tokens }
  | { readonly kind: 'new-password'; readonly session: string }
  | { readonly kind: 'enrol'; readonly session: string; readonly secret: string }
  | { readonly kind: 'code'; readonly session: string };

/** Cognito asked for a step the caller cannot take (e.g. a new password, from a script). */
export class UnansweredChallenge extends Error {
  readonly challenge: string;
  constructor(challenge: string) {
    super(`Cognito asked for ${challenge}, which this sign-in cannot answer`);
    this.name = 'UnansweredChallenge';
    this.challenge = challenge;
  }
}

export class SignInSteps {
  private readonly client: CognitoIdentityProviderClient;
  private readonly clientId: string;
  readonly username: string;
  /** The device name Cognito keeps for an enrolment. */
  private readonly deviceName: string | undefined;

  constructor(
    client: CognitoIdentityProviderClient,
    clientId: string,
    username: string,
    deviceName?: string,
  ) {
    this.client = client;
    this.clientId = clientId;
    this.username = username;
    this.deviceName = deviceName;
  }

  async password(password: string): Promise<Step> {
    const answer = await this.client.send(
      new InitiateAuthCommand({
        AuthFlow: 'USER_PASSWORD_AUTH',
        ClientId: this.clientId,
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
        ...(this.deviceName ? { FriendlyDeviceName: this.deviceName } : {}),
      }),
    );
    if (verified.Status !== 'SUCCESS' || !verified.Session)
      throw new Error('Cognito did not verify the new TOTP');
    return this.respond('MFA_SETUP', verified.Session, {});
  }

  private async respond(
    challenge: ChallengeNameType,
    session: string,
    responses: Record<string, string>,
  ): Promise<Step> {
    const answer = await this.client.send(
      new RespondToAuthChallengeCommand({
        ClientId: this.clientId,
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
    if (!challenge) {
      if (!result?.AccessToken || !result.IdToken || !result.RefreshToken)
        throw new Error('Cognito answered without tokens');
      const { AccessToken, IdToken, RefreshToken } = result;
      return {
        kind: 'signed-in',
        tokens: { accessToken: AccessToken, idToken: IdToken, refreshToken: RefreshToken },
      };
    }
    if (!session) throw new Error('Cognito answered without a session');
    if (challenge === 'NEW_PASSWORD_REQUIRED') return { kind: 'new-password', session };
    if (challenge === 'SOFTWARE_TOKEN_MFA') return { kind: 'code', session };
    if (challenge === 'MFA_SETUP') {
      const associated = await this.client.send(
        new AssociateSoftwareTokenCommand({ Session: session }),
      );
      if (!associated.SecretCode || !associated.Session)
        throw new Error('Cognito gave no TOTP secret to enrol');
      return { kind: 'enrol', session: associated.Session, secret: associated.SecretCode };
    }
    throw new UnansweredChallenge(challenge);
  }
}
