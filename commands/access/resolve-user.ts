/**
 * Finds the staff user a command names, before anything changes: by Cognito username first
 * (AdminGetUser also takes the pool's aliases), then by e-mail address (ListUsers). The result
 * carries the `sub`, the key of the user's access-state item (core/access-state.ts).
 */
import {
  AdminGetUserCommand,
  ListUsersCommand,
  type AttributeType,
  type CognitoIdentityProviderClient,
} from '@aws-sdk/client-cognito-identity-provider';

export interface StaffUser {
  readonly username: string;
  /** The e-mail attribute, when the user has one: the name operators know a user by. */
  readonly email?: string;
  readonly sub: string;
  readonly enabled: boolean;
}

export class UnknownUserError extends Error {
  override readonly name = 'UnknownUserError';
}

function attribute(attributes: AttributeType[] | undefined, name: string): string | undefined {
  return attributes?.find((a) => a.Name === name)?.Value;
}

/** Cognito's answer as a StaffUser; undefined when it lacks the username or the sub. */
function staffUser(
  username: string | undefined,
  attributes: AttributeType[] | undefined,
  enabled: boolean | undefined,
): StaffUser | undefined {
  const sub = attribute(attributes, 'sub');
  if (!username || !sub) return undefined;
  const email = attribute(attributes, 'email');
  return { username, sub, ...(email ? { email } : {}), enabled: enabled !== false };
}

export async function resolveUser(
  client: CognitoIdentityProviderClient,
  userPoolId: string,
  user: string,
): Promise<StaffUser> {
  try {
    const found = await client.send(
      new AdminGetUserCommand({ UserPoolId: userPoolId, Username: user }),
    );
    const named = staffUser(found.Username, found.UserAttributes, found.Enabled);
    if (named) return named;
  } catch (error) {
    if ((error as Error).name !== 'UserNotFoundException') throw error;
  }
  // A ListUsers filter value is a quoted string: a quote or backslash cannot be in an e-mail
  // address we would look up, and would change the filter.
  if (user.includes('@') && !/["\\]/.test(user)) {
    const listed = await client.send(
      new ListUsersCommand({ UserPoolId: userPoolId, Filter: `email = "${user}"`, Limit: 2 }),
    );
    const users = listed.Users ?? [];
    if (users.length > 1) {
      throw new UnknownUserError(
        'More than one user has that e-mail address: name the user by Cognito username instead',
      );
    }
    const [only] = users;
    const found = staffUser(only?.Username, only?.Attributes, only?.Enabled);
    if (found) return found;
  }
  throw new UnknownUserError(
    `No such user in user pool ${userPoolId} (looked up as a username, then as an e-mail address)`,
  );
}
