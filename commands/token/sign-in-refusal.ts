/**
 * Cognito's refusals of a sign-in by `npm run token`, each in one line that says what to do.
 * Cognito's own messages name neither the password nor the code, so none is repeated here.
 */
import { isUserDisabledRefusal } from '../access/cognito-actions.ts';
import { UnansweredChallenge } from '../../sign-in/flow.ts';
import { DEMO_USERNAMES } from './args.ts';
import { CommandFailure } from '../command-failure.ts';

export interface SignInContext {
  readonly username: string;
  /** Where the user is: a local demo user, a local user of their own, or a stage's. */
  readonly kind: 'demo' | 'local' | 'stage';
  /** The local staff page's address, where a first sign-in is finished; unknown for a stage. */
  readonly staffPage?: string;
}

/** The staff page, named as the user finds it. */
export function staffPageName(staffPage: string | undefined): string {
  return staffPage ? `the staff page (${staffPage})` : 'the staff page';
}

export function isConnectionRefused(error: unknown): boolean {
  const e = error as Error & { code?: string; cause?: { code?: string } };
  return (
    e.code === 'ECONNREFUSED' ||
    e.cause?.code === 'ECONNREFUSED' ||
    /ECONNREFUSED|fetch failed|socket hang up/.test(String(e.message))
  );
}

export function signInRefusal(error: unknown, context: SignInContext): CommandFailure {
  if (error instanceof CommandFailure) return error;
  const e = error as Error;
  const { username, kind } = context;
  const who = JSON.stringify(username);
  if (e instanceof UnansweredChallenge) {
    return new CommandFailure(
      `${who} has not finished their first sign-in (Cognito asks for ${e.challenge}): sign in ` +
        `once on ${staffPageName(context.staffPage)} to set a password and enrol an ` +
        'authenticator app, then run this again',
    );
  }
  if (e.name === 'CodeMismatchException')
    return new CommandFailure(
      'the code was not accepted (CodeMismatchException): codes change every 30 s',
    );
  if (e.name === 'NotAuthorizedException' && /invalid session/i.test(e.message))
    return new CommandFailure(
      'the sign-in took longer than its 3 minutes (NotAuthorizedException): run the command again',
    );
  if (isUserDisabledRefusal(e)) {
    if (kind === 'stage')
      return new CommandFailure(
        `user ${who} is disabled (NotAuthorizedException): an administrator enables them`,
      );
    return new CommandFailure(
      `user ${who} is disabled (offboarded); enable them with \`npm run access -- enable ${username}\`` +
        (kind === 'demo' ? ' (or restart `npm start`, which restores the demo users)' : ''),
    );
  }
  if (['NotAuthorizedException', 'UserNotFoundException'].includes(e.name)) {
    return new CommandFailure(
      kind === 'demo'
        ? `unknown user ${who}; the local demo users are ${DEMO_USERNAMES}`
        : `the username or password was not accepted (${e.name})`,
    );
  }
  if (e.name === 'PasswordResetRequiredException')
    return new CommandFailure(
      `${who} must reset their password first (PasswordResetRequiredException)`,
    );
  return new CommandFailure(`could not sign in ${who}: ${e.name}: ${e.message}`);
}
