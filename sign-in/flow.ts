/**
 * A staff sign-in as Cognito runs it with MFA required (lib/identity.ts): USER_PASSWORD_AUTH,
 * then the second factor. A password alone never yields tokens: Cognito answers
 * SOFTWARE_TOKEN_MFA (a code of the user's TOTP app) or, for a user without one yet, MFA_SETUP
 * (AssociateSoftwareToken and VerifySoftwareToken with the challenge's Session, then
 * RespondToAuthChallenge MFA_SETUP). The tools that sign in use this one flow: `npm run token`,
 * `npm run smoke`, the local stack's tokenFor. The staff page has its own (staff-app/).
 */
import {
  AssociateSoftwareTokenCommand,
  InitiateAuthCommand,
  RespondToAuthChallengeCommand,
  VerifySoftwareTokenCommand,
  type AuthenticationResultType,
  type CognitoIdentityProviderClient,
  type InitiateAuthCommandOutput,
} from '@aws-sdk/client-cognito-identity-provider';
import { totpCode } from './totp';

export interface SignInRequest {
  client: CognitoIdentityProviderClient;
  clientId: string;
  username: string;
  password: string;
  /** The code for SOFTWARE_TOKEN_MFA: from the user's TOTP secret, or asked (a prompt, --otp). */
  code?: () => string | Promise<string>;
  /**
   * MFA_SETUP (a user without a TOTP yet): enrol one, whose new secret the result carries.
   * Without it, MFA_SETUP is refused as a step this caller cannot take.
   */
  enrol?: boolean;
  /** The device name Cognito keeps for an enrolment. */
  deviceName?: string;
}

export interface SignedIn {
  accessToken: string;
  idToken: string;
  refreshToken: string;
  /** The TOTP secret this sign-in enrolled (MFA_SETUP); undefined when it enrolled none. */
  enrolledSecret?: string;
}

/** Cognito asked for a step the caller cannot take here (e.g. a new password). */
export class UnansweredChallenge extends Error {
  constructor(readonly challenge: string) {
    super(`Cognito asked for ${challenge}, which this sign-in cannot answer`);
    this.name = 'UnansweredChallenge';
  }
}

function tokens(result: AuthenticationResultType | undefined): Omit<SignedIn, 'enrolledSecret'> {
  if (!result?.AccessToken || !result.IdToken || !result.RefreshToken)
    throw new Error('Cognito answered without tokens');
  return {
    accessToken: result.AccessToken,
    idToken: result.IdToken,
    refreshToken: result.RefreshToken,
  };
}

/** Signs `username` in, answering the second factor as the request allows. */
export async function signInWithTotp(request: SignInRequest): Promise<SignedIn> {
  const { client, clientId, username } = request;
  const first: InitiateAuthCommandOutput = await client.send(
    new InitiateAuthCommand({
      AuthFlow: 'USER_PASSWORD_AUTH',
      ClientId: clientId,
      AuthParameters: { USERNAME: username, PASSWORD: request.password },
    }),
  );
  const respond = async (
    challenge: 'SOFTWARE_TOKEN_MFA' | 'MFA_SETUP',
    session: string | undefined,
    responses: Record<string, string>,
  ) =>
    client.send(
      new RespondToAuthChallengeCommand({
        ClientId: clientId,
        ChallengeName: challenge,
        Session: session,
        ChallengeResponses: { USERNAME: username, ...responses },
      }),
    );

  if (!first.ChallengeName) return tokens(first.AuthenticationResult);
  if (first.ChallengeName === 'SOFTWARE_TOKEN_MFA' && request.code) {
    const answer = await respond('SOFTWARE_TOKEN_MFA', first.Session, {
      SOFTWARE_TOKEN_MFA_CODE: await request.code(),
    });
    if (answer.ChallengeName) throw new UnansweredChallenge(answer.ChallengeName);
    return tokens(answer.AuthenticationResult);
  }
  if (first.ChallengeName === 'MFA_SETUP' && request.enrol) {
    const associated = await client.send(
      new AssociateSoftwareTokenCommand({ Session: first.Session }),
    );
    const secret = associated.SecretCode;
    if (!secret) throw new Error('Cognito gave no TOTP secret to enrol');
    const verified = await client.send(
      new VerifySoftwareTokenCommand({
        Session: associated.Session,
        UserCode: totpCode(secret),
        ...(request.deviceName ? { FriendlyDeviceName: request.deviceName } : {}),
      }),
    );
    if (verified.Status !== 'SUCCESS') throw new Error('Cognito did not verify the new TOTP');
    const answer = await respond('MFA_SETUP', verified.Session, {});
    if (answer.ChallengeName) throw new UnansweredChallenge(answer.ChallengeName);
    return { ...tokens(answer.AuthenticationResult), enrolledSecret: secret };
  }
  throw new UnansweredChallenge(first.ChallengeName);
}
