/**
 * Who a `sub` is, for a person reading the audit trail: events keep the `sub` (stable, never
 * reused), people know each other by e-mail address. Asks the user pool with ListUsers and the
 * filter `sub = "..."`, which a stage's Cognito and the local cognito-local both answer; each sub
 * is asked for once per run.
 */
import {
  ListUsersCommand,
  type CognitoIdentityProviderClient,
} from '@aws-sdk/client-cognito-identity-provider';

/** A sub's name, or undefined when the pool has no such user (deleted) or cannot be asked. */
export type NameOfSub = (sub: string) => Promise<string | undefined>;

/** A sub as Cognito writes it; anything else could not be put in a filter's quotes. */
const SUB = /^[0-9A-Za-z-]{1,128}$/;

export function subNamer(
  cognito: CognitoIdentityProviderClient,
  userPoolId: string,
  known: ReadonlyMap<string, string> = new Map(),
): NameOfSub {
  const cache = new Map<string, Promise<string | undefined>>(
    [...known].map(([sub, name]) => [sub, Promise.resolve(name)]),
  );
  return (sub) => {
    let name = cache.get(sub);
    if (name === undefined) {
      name = SUB.test(sub) ? lookUp(cognito, userPoolId, sub) : Promise.resolve(undefined);
      cache.set(sub, name);
    }
    return name;
  };
}

async function lookUp(
  cognito: CognitoIdentityProviderClient,
  userPoolId: string,
  sub: string,
): Promise<string | undefined> {
  const { Users = [] } = await cognito.send(
    new ListUsersCommand({ UserPoolId: userPoolId, Filter: `sub = "${sub}"`, Limit: 1 }),
  );
  const [user] = Users;
  return user?.Attributes?.find((a) => a.Name === 'email')?.Value ?? user?.Username;
}
