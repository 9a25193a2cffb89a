/**
 * `npm run --silent token -- <username>` against the running local rig (`npm start`).
 * A demo user: the demo password, and the code of the TOTP secret the local rig keeps for them
 * (or, with --code, that code alone). Any other user (added with `npm run access -- add`): as a
 * stage's user, their password (TOKEN_PASSWORD or asked) and their authenticator app's code
 * (--otp or asked); first, from the pool, whether they have finished their first sign-in on the
 * staff page, so that one who has not is told so before being asked for anything.
 */
import {
  AdminGetUserCommand,
  type CognitoIdentityProviderClient,
} from '@aws-sdk/client-cognito-identity-provider';
import { DEMO_PASSWORD, cognitoClient } from '../../local/cognito/user-pool.ts';
import { incompleteState, readLocalState, runningDataDir } from '../../local/rig/state.ts';
import { signInWithTotp } from '../../sign-in/flow.ts';
import { totpCode } from '../../sign-in/totp.ts';
import { DEMO_USERNAMES, type TokenArgs } from './args.ts';
import { codeOf, passwordOf } from './credentials.ts';
import { CommandFailure } from '../command-failure.ts';
import {
  isConnectionRefused,
  signInRefusal,
  staffPageName,
  type SignInContext,
} from './sign-in-refusal.ts';

/** What the pool says of a user who is not a demo user; refuses one who cannot sign in yet. */
async function assertCanSignIn(
  client: CognitoIdentityProviderClient,
  userPoolId: string,
  username: string,
  staffPage: string | undefined,
): Promise<void> {
  const who = JSON.stringify(username);
  let user;
  try {
    user = await client.send(
      new AdminGetUserCommand({ UserPoolId: userPoolId, Username: username }),
    );
  } catch (error) {
    if ((error as Error).name !== 'UserNotFoundException') throw error;
    throw new CommandFailure(
      `unknown user ${who}: no such user in the local rig; the local demo users are ` +
        `${DEMO_USERNAMES}, and \`npm run access -- add <e-mail>\` adds a staff user`,
    );
  }
  const page = staffPageName(staffPage);
  if (user.Enabled === false)
    throw new CommandFailure(
      `user ${who} is disabled (offboarded); enable them with \`npm run access -- enable ${username}\``,
    );
  if (user.UserStatus === 'FORCE_CHANGE_PASSWORD')
    throw new CommandFailure(
      `${who} has not signed in yet, so has no password of their own and no authenticator app: ` +
        `sign in once on ${page} with the temporary password \`npm run access -- add\` printed, ` +
        'set a password and enrol an authenticator app, then run this again',
    );
  if (!(user.UserMFASettingList ?? []).includes('SOFTWARE_TOKEN_MFA'))
    throw new CommandFailure(
      `${who} has set a password but has not enrolled an authenticator app yet: sign in once ` +
        `more on ${page} to enrol one, then run this again`,
    );
}

/** The access token (or, with --code, a demo user's current code) of a local user. */
export async function localToken(args: TokenArgs): Promise<string> {
  const dataDir = runningDataDir();
  let state;
  try {
    state = readLocalState(dataDir);
  } catch (error) {
    throw new CommandFailure((error as Error).message);
  }
  const { endpoint, clientId, userPoolId, demoTotpSecrets } = state.cognito ?? {};
  if (!endpoint || !clientId || !userPoolId || !demoTotpSecrets)
    throw new CommandFailure(incompleteState(dataDir).message);
  const secret = demoTotpSecrets[args.username];
  const who = JSON.stringify(args.username);
  if (args.code && !secret)
    throw new CommandFailure(
      `--code is for the local demo users (${DEMO_USERNAMES}): ${who}'s codes are on their ` +
        'authenticator app',
    );
  if (args.code) return totpCode(secret!);
  if (args.otp !== undefined && secret)
    throw new CommandFailure(
      `--otp is for a user with an authenticator app of their own: the codes of ${who}, a local ` +
        'demo user, are computed',
      2,
    );
  const staffPage = state.apiUrl ? `${state.apiUrl.replace(/\/+$/, '')}/app/` : undefined;
  const context: SignInContext = {
    username: args.username,
    kind: secret ? 'demo' : 'local',
    ...(staffPage ? { staffPage } : {}),
  };
  const client = cognitoClient(endpoint);
  try {
    if (!secret) await assertCanSignIn(client, userPoolId, args.username, staffPage);
    const tokens = await signInWithTotp({
      client,
      clientId,
      username: args.username,
      password: secret ? DEMO_PASSWORD : await passwordOf(args.username),
      code: secret ? () => totpCode(secret) : codeOf(args.otp),
    });
    return tokens.accessToken;
  } catch (error) {
    if (error instanceof CommandFailure) throw error;
    if (isConnectionRefused(error))
      throw new CommandFailure(
        `the local rig is not running (no answer from ${endpoint}): start it with \`npm start\``,
      );
    throw signInRefusal(error, context);
  } finally {
    client.destroy();
  }
}
