/**
 * The password and the TOTP code of a user who signs in with their own (a stage's user, or a
 * local one added with `npm run access -- add`): the password from TOKEN_PASSWORD or asked
 * without echo, the code from --otp or asked. Without a terminal nothing is asked: the refusal
 * says what to set instead.
 */
import type { SignInRequest } from '../../sign-in/flow.ts';
import { ask, canAsk } from '../../sign-in/prompt.ts';
import { CommandFailure } from '../command-failure.ts';

export async function passwordOf(
  username: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  if (env.TOKEN_PASSWORD) return env.TOKEN_PASSWORD;
  if (!canAsk())
    throw new CommandFailure(
      'set TOKEN_PASSWORD, or run on a terminal to be asked for the password',
    );
  const password = await ask(`Password for ${username}: `, true);
  if (!password) throw new CommandFailure('no password was given');
  return password;
}

/** Asked only when Cognito asks for it: after the password was accepted. */
export function codeOf(otp: string | undefined): NonNullable<SignInRequest['code']> {
  if (otp !== undefined) return () => otp;
  return async () => {
    if (!canAsk())
      throw new CommandFailure('give --otp <code>, or run on a terminal to be asked for it');
    const code = (await ask('TOTP code from your authenticator app: ')).replace(/\s/g, '');
    if (!/^\d{6}$/.test(code))
      throw new CommandFailure('a code is the 6 digits your authenticator app shows');
    return code;
  };
}
