/** The Cognito side of ending access (SPEC 8), one call each, named as the runbook names them. */
import {
  AdminAddUserToGroupCommand,
  AdminDisableUserCommand,
  AdminEnableUserCommand,
  AdminListGroupsForUserCommand,
  AdminRemoveUserFromGroupCommand,
  AdminUserGlobalSignOutCommand,
  ListGroupsCommand,
  type CognitoIdentityProviderClient,
  type GroupType,
} from '@aws-sdk/client-cognito-identity-provider';

interface Pool {
  readonly client: CognitoIdentityProviderClient;
  readonly userPoolId: string;
}

/** Revokes every refresh token of the user: no new access or ID token from them. */
export async function globalSignOut({ client, userPoolId }: Pool, username: string): Promise<void> {
  await client.send(
    new AdminUserGlobalSignOutCommand({ UserPoolId: userPoolId, Username: username }),
  );
}

/** The user can no longer sign in (or refresh) until an administrator enables them again. */
export async function disableUser({ client, userPoolId }: Pool, username: string): Promise<void> {
  await client.send(new AdminDisableUserCommand({ UserPoolId: userPoolId, Username: username }));
}

/** The user can sign in again (undoes disableUser). */
export async function enableUser({ client, userPoolId }: Pool, username: string): Promise<void> {
  await client.send(new AdminEnableUserCommand({ UserPoolId: userPoolId, Username: username }));
}

/**
 * Cognito's answer to some admin calls about a disabled user (AdminUserGlobalSignOut among them):
 * NotAuthorizedException "User is disabled."
 */
export function isUserDisabledRefusal(error: unknown): boolean {
  const e = error as { name?: string; message?: string };
  return e.name === 'NotAuthorizedException' && /user is disabled/i.test(e.message ?? '');
}

/** Whether the pool has this group (ListGroups: cognito-local answers GetGroup of none with a 500). */
export async function groupExists({ client, userPoolId }: Pool, group: string): Promise<boolean> {
  return anyPageNames(group, (token) =>
    client.send(new ListGroupsCommand({ UserPoolId: userPoolId, NextToken: token })),
  );
}

/** Whether any page of a paged list of groups has one named `group`. */
async function anyPageNames(
  group: string,
  page: (token: string | undefined) => Promise<{ Groups?: GroupType[]; NextToken?: string }>,
): Promise<boolean> {
  let token: string | undefined;
  do {
    const { Groups, NextToken } = await page(token);
    if (Groups?.some((g) => g.GroupName === group)) return true;
    token = NextToken;
  } while (token);
  return false;
}

/** Whether the user is in the group now. */
export async function isMember(
  { client, userPoolId }: Pool,
  username: string,
  group: string,
): Promise<boolean> {
  return anyPageNames(group, (token) =>
    client.send(
      new AdminListGroupsForUserCommand({
        UserPoolId: userPoolId,
        Username: username,
        NextToken: token,
      }),
    ),
  );
}

/** Tokens issued from now on (sign-in or refresh) no longer carry the group. */
export async function removeFromGroup(
  { client, userPoolId }: Pool,
  username: string,
  group: string,
): Promise<void> {
  await client.send(
    new AdminRemoveUserFromGroupCommand({
      UserPoolId: userPoolId,
      Username: username,
      GroupName: group,
    }),
  );
}

/** Tokens issued from now on (sign-in or refresh) carry the group again. */
export async function addToGroup(
  { client, userPoolId }: Pool,
  username: string,
  group: string,
): Promise<void> {
  await client.send(
    new AdminAddUserToGroupCommand({
      UserPoolId: userPoolId,
      Username: username,
      GroupName: group,
    }),
  );
}
