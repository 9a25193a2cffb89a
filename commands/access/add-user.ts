/**
 * `npm run access -- add <e-mail> [--group <group>]` (SPEC 8): a new staff user, by one command.
 * In a stage Cognito makes the temporary password and e-mails it; locally (no mail) the command
 * makes one and prints it. Either way the first sign-in sets the password and enrols the
 * authenticator (MFA is required). An existing user, or a group the pool lacks, is refused before
 * anything changes.
 */
import { randomInt } from 'node:crypto';
import { AdminCreateUserCommand } from '@aws-sdk/client-cognito-identity-provider';
import { PASSWORD_POLICY } from '../../core/password-policy.ts';
import { addToGroup, groupExists } from './cognito-actions.ts';
import { resolveUser, UnknownUserError } from './resolve-user.ts';
import type { AccessTarget } from './target.ts';
import { VerbIncompleteError } from './verbs.ts';

/** A refusal that changed nothing: the user exists, the group does not, the address is none. */
export class AddRefusedError extends Error {
  override readonly name = 'AddRefusedError';
}

/** What the command takes as an e-mail address: the pool's username attribute. */
const EMAIL = /^[^\s@"\\]+@[^\s@"\\]+\.[^\s@"\\]+$/;

/**
 * A temporary password the pool's policy takes (core/password-policy.ts): every kind of character
 * it asks for, from an alphabet without look-alikes, 20 characters.
 */
export function temporaryPassword(): string {
  const sets = ['ABCDEFGHJKLMNPQRSTUVWXYZ', 'abcdefghijkmnpqrstuvwxyz', '23456789', '!#%+-=?@'];
  const pick = (set: string) => set[randomInt(set.length)]!;
  const chars = [...sets.map(pick)];
  const all = sets.join('');
  while (chars.length < Math.max(20, PASSWORD_POLICY.minLength)) chars.push(pick(all));
  for (let i = chars.length - 1; i > 0; i -= 1) {
    const j = randomInt(i + 1);
    [chars[i], chars[j]] = [chars[j]!, chars[i]!];
  }
  return chars.join('');
}

async function exists(target: AccessTarget, email: string): Promise<boolean> {
  try {
    await resolveUser(target.cognito, target.userPoolId, email);
    return true;
  } catch (error) {
    if (error instanceof UnknownUserError) return false;
    throw error;
  }
}

/** Creates the user (and puts them in `group`); returns what it did, for the operator. */
export async function addUser(
  target: AccessTarget,
  email: string,
  group?: string,
): Promise<string[]> {
  const pool = { client: target.cognito, userPoolId: target.userPoolId };
  if (!EMAIL.test(email))
    throw new AddRefusedError(`${JSON.stringify(email)} is not an e-mail address`);
  if (group !== undefined && !(await groupExists(pool, group)))
    throw new AddRefusedError(`No group ${group} in user pool ${target.userPoolId}`);
  if (await exists(target, email))
    throw new AddRefusedError(`${email} is already a user of user pool ${target.userPoolId}`);
  const password = target.local ? temporaryPassword() : undefined;
  let username: string;
  try {
    const created = await target.cognito.send(
      new AdminCreateUserCommand({
        UserPoolId: target.userPoolId,
        Username: email,
        UserAttributes: [
          { Name: 'email', Value: email },
          { Name: 'email_verified', Value: 'true' },
        ],
        ...(password === undefined
          ? { DesiredDeliveryMediums: ['EMAIL'] }
          : { MessageAction: 'SUPPRESS', TemporaryPassword: password }),
      }),
    );
    // The pool's own username (a UUID where the e-mail address is an alias).
    username = created.User?.Username ?? email;
  } catch (error) {
    if ((error as Error).name === 'UsernameExistsException')
      throw new AddRefusedError(`${email} is already a user of user pool ${target.userPoolId}`);
    throw error;
  }
  const done = [
    `add: user ${email} created in ${target.where}`,
    password === undefined
      ? 'Cognito: the temporary password was e-mailed to that address'
      : `Temporary password (the first sign-in sets a new one): ${password}`,
  ];
  if (group !== undefined) {
    try {
      await addToGroup(pool, username, group);
    } catch (error) {
      throw new VerbIncompleteError(done, `adding to ${group}`, [`group ${group}`], error);
    }
    done.push(`Cognito: added to group ${group} (AdminAddUserToGroup)`);
  }
  done.push('First sign-in: a new password, then an authenticator app (MFA is required).');
  return done;
}
