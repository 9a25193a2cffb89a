/**
 * A staff sign-in from a tool, start to end: the steps of ./steps.ts, the second factor answered
 * with a code the caller gives (a demo user's secret, a prompt, --otp) or, for a user without a
 * TOTP yet, by enrolling one whose secret the result carries. The tools that sign in use this
 * one flow: `npm run token`, `npm run smoke`, the local rig's tokenFor.
 */

import type { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { SignInSteps, UnansweredChallenge, type Tokens } from './steps.ts';
import { totpCode } from './totp.ts';

export { UnansweredChallenge } from './steps.ts';

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

export interface SignedIn extends Tokens {
  /** The TOTP secret this sign-in enrolled (MFA_SETUP); undefined when it enrolled none. */
  enrolledSecret?: string;
}

/** Signs `username` in, answering the second factor as the request allows (./steps.ts). */
export async function signInWithTotp(request: SignInRequest): Promise<SignedIn> {
  const steps = new SignInSteps(
    request.client,
    request.clientId,
    request.username,
    request.deviceName,
  );
  let enrolledSecret: string | undefined;
  let step = await steps.password(request.password);
  for (;;) {
    if (step.kind === 'signed-in')
      return { ...step.tokens, ...(enrolledSecret ? { enrolledSecret } : {}) };
    if (step.kind === 'code' && request.code) {
      step = await steps.code(step.session, await request.code());
    } else if (step.kind === 'enrol' && request.enrol && !enrolledSecret) {
      enrolledSecret = step.secret;
      step = await steps.enrol(step.session, totpCode(step.secret));
    } else {
      const names = {
        code: 'SOFTWARE_TOKEN_MFA',
        enrol: 'MFA_SETUP',
        'new-password': 'NEW_PASSWORD_REQUIRED',
      };
      throw new UnansweredChallenge(names[step.kind]);
    }
  }
}
