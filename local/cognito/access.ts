/**
 * What the local Cognito needs for `npm run access` (SPEC 8) and cognito-local 5.3.0 lacks:
 * - AdminUserGlobalSignOut: revokes every refresh token of the user, as Cognito does (5.3.0 has no
 *   such target and answers it with a 500), and, as Cognito does, refuses a disabled user with
 *   NotAuthorizedException "User is disabled." (so that `npm run access` meets that refusal
 *   here as it does in AWS, commands/access/verbs.ts).
 * - A disabled user cannot sign in or refresh: cognito-local's InitiateAuth ignores `Enabled`,
 *   Cognito answers NotAuthorizedException "User is disabled.".
 * Both wrap cognito-local's own router and user store, so everything else stays its behaviour.
 */
import {
  cognitoLocalErrors,
  type LocalCognitoService,
  type LocalRouter,
  type LocalUser,
  type LocalUserPool,
} from './internals.ts';

interface AuthRequest {
  ClientId?: string;
  UserPoolId?: string;
  AuthFlow?: string;
  AuthParameters?: { USERNAME?: string; REFRESH_TOKEN?: string };
}

/** The user an InitiateAuth or AdminInitiateAuth request is for, if it names one that exists. */
async function userOf(
  pool: LocalUserPool,
  ctx: unknown,
  req: AuthRequest,
): Promise<LocalUser | null> {
  const params = req.AuthParameters ?? {};
  if (/^REFRESH_TOKEN/.test(req.AuthFlow ?? '') && params.REFRESH_TOKEN)
    return pool.getUserByRefreshToken(ctx, params.REFRESH_TOKEN);
  if (params.USERNAME) return pool.getUserByUsername(ctx, params.USERNAME);
  return null;
}

/** cognito-local's router plus the two behaviours above. */
export function withAccessControl(
  router: LocalRouter,
  services: { cognito: unknown },
): LocalRouter {
  const cognito = services.cognito as LocalCognitoService;
  const errors = cognitoLocalErrors();
  return (target) => {
    if (target === 'AdminUserGlobalSignOut') {
      return async (ctx, req) => {
        const pool = await cognito.getUserPool(ctx, String(req.UserPoolId));
        const user = await pool.getUserByUsername(ctx, String(req.Username));
        if (!user) throw new errors.UserNotFoundError('User does not exist.');
        if (user.Enabled === false) throw new errors.NotAuthorizedError('User is disabled.');
        await pool.saveUser(ctx, { ...user, RefreshTokens: [] });
        return {};
      };
    }
    const route = router(target);
    if (target !== 'InitiateAuth' && target !== 'AdminInitiateAuth') return route;
    return async (ctx, req) => {
      const auth = req as AuthRequest;
      const pool = auth.UserPoolId
        ? await cognito.getUserPool(ctx, auth.UserPoolId)
        : await cognito.getUserPoolForClientId(ctx, String(auth.ClientId));
      const user = await userOf(pool, ctx, auth);
      if (user?.Enabled === false) throw new errors.NotAuthorizedError('User is disabled.');
      return route(ctx, req);
    };
  };
}
