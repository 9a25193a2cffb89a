/**
 * MFA required, TOTP only (issue 31), as Cognito answers it; cognito-local 5.3.0 differs. What
 * Cognito does with MfaConfiguration ON, and what the emulator lacks:
 * - A correct password of a user without a verified TOTP: Cognito answers the MFA_SETUP
 *   challenge (ChallengeParameters MFAS_CAN_SETUP '["SOFTWARE_TOKEN_MFA"]') with a Session;
 *   cognito-local throws NotAuthorizedException.
 * - NEW_PASSWORD_REQUIRED answered: Cognito goes on to MFA_SETUP (or SOFTWARE_TOKEN_MFA for a
 *   user who has a TOTP); cognito-local hands out tokens.
 * - AssociateSoftwareToken and VerifySoftwareToken with that Session (the first-sign-in
 *   enrolment): refused by cognito-local (access tokens only). Cognito's wrong code at
 *   VerifySoftwareToken is EnableSoftwareTokenMFAException.
 * - RespondToAuthChallenge MFA_SETUP (after VerifySoftwareToken): unsupported by cognito-local.
 * - Tokens from RespondToAuthChallenge (SOFTWARE_TOKEN_MFA): cognito-local does not store the
 *   refresh token, so REFRESH_TOKEN_AUTH and RevokeToken refuse it; Cognito's works.
 * - Sessions: Cognito's last 3 minutes (the app client's AuthSessionValidity, default 3), name
 *   one user and one next step, and are spent by a successful answer (a wrong code may be tried
 *   again); cognito-local takes any string. Unknown, spent or expired: NotAuthorizedException
 *   "Invalid session for the user, session is expired.".
 * - AdminInitiateAuth ADMIN_USER_PASSWORD_AUTH: cognito-local hands out tokens for a password
 *   alone, whatever the client allows; Cognito refuses it for a client without
 *   ALLOW_ADMIN_USER_PASSWORD_AUTH (as the local app client, and the stage's, are).
 * - The password, in USER_PASSWORD_AUTH: cognito-local offers NEW_PASSWORD_REQUIRED without
 *   checking the temporary password, and answers a wrong one with InvalidPasswordException;
 *   Cognito checks it first and answers a wrong password, or an unknown user (the app client
 *   prevents user existence errors), NotAuthorizedException "Incorrect username or password.".
 * - The new password of NEW_PASSWORD_REQUIRED: Cognito holds it to the pool's password policy
 *   (InvalidPasswordException "Password does not conform to policy: ..."); cognito-local takes any.
 * Sessions live in this process's memory (a restart of the local rig forgets them, as a
 * sign-in left for 3 minutes would be). Everything else stays cognito-local's behaviour. Remove
 * this file when cognito-local does these itself.
 */
import { randomBytes } from 'node:crypto';
import {
  cognitoLocalErrors,
  cognitoLocalTotp,
  type LocalAppClient,
  type LocalCognitoService,
  type LocalRouter,
  type LocalUser,
  type LocalUserPool,
  type PasswordPolicy,
} from './internals.ts';

/** How long a challenge's Session lasts: Cognito's default AuthSessionValidity. */
export const AUTH_SESSION_MS = 3 * 60 * 1000;

const TOTP = 'SOFTWARE_TOKEN_MFA';
const CAN_SETUP = JSON.stringify([TOTP]);
const INVALID_SESSION = 'Invalid session for the user, session is expired.';
const WRONG_PASSWORD = 'Incorrect username or password.';

interface Tokens {
  AccessToken: string;
  IdToken: string;
  RefreshToken: string;
}
interface LocalServices {
  cognito: unknown;
  tokenGenerator: unknown;
  clock: unknown;
}

/** The next step a Session allows, and whose it is. */
interface Session {
  /** RespondToAuthChallenge's ChallengeName; ASSOCIATE/VERIFY: the MFA_SETUP flow's calls. */
  step: 'NEW_PASSWORD_REQUIRED' | typeof TOTP | 'MFA_SETUP' | 'VERIFY' | 'RESPOND_MFA_SETUP';
  /** The pool's own username (cognito-local's key). */
  username: string;
  clientId: string;
  expiresAt: number;
}

/** The MFA methods cognito-local would challenge for (its initiateAuth's enabledMfaMethods). */
function hasMfa(user: LocalUser): boolean {
  return (
    (user.UserMFASettingList ?? []).length > 0 ||
    (user.MFAOptions ?? []).some((o) => o.DeliveryMedium === 'SMS')
  );
}

/** The first rule of the pool's policy `password` breaks, in Cognito's words; undefined if none. */
export function policyBroken(
  policy: PasswordPolicy | undefined,
  password: string,
): string | undefined {
  if (!policy) return undefined;
  if (password.length < (policy.MinimumLength ?? 0)) return 'Password not long enough';
  if (policy.RequireUppercase && !/[A-Z]/.test(password))
    return 'Password must have uppercase characters';
  if (policy.RequireLowercase && !/[a-z]/.test(password))
    return 'Password must have lowercase characters';
  if (policy.RequireNumbers && !/[0-9]/.test(password))
    return 'Password must have numeric characters';
  if (policy.RequireSymbols && !/[^A-Za-z0-9]/.test(password))
    return 'Password must have symbol characters';
  return undefined;
}

/** Whether Cognito asks this user for a second factor at sign-in. */
function mfaApplies(pool: LocalUserPool, user: LocalUser): boolean {
  const mode = pool.options.MfaConfiguration;
  return mode === 'ON' || (mode === 'OPTIONAL' && hasMfa(user));
}

/** A user's TOTP, verified and chosen, as Cognito keeps it after VerifySoftwareToken. */
function withVerifiedTotp(user: LocalUser, secret: string, friendlyDeviceName?: string): LocalUser {
  const methods = user.UserMFASettingList ?? [];
  return {
    ...user,
    SoftwareTokenMfaConfiguration: {
      Secret: secret,
      Verified: true,
      ...(friendlyDeviceName ? { FriendlyDeviceName: friendlyDeviceName } : {}),
    },
    UserMFASettingList: methods.includes(TOTP) ? methods : [...methods, TOTP],
    PreferredMfaSetting: TOTP,
  };
}

/**
 * Local provisioning only: the user's TOTP set to `secret`, verified. AWS has no call that
 * chooses a user's secret (AssociateSoftwareToken draws it); the local rig keeps one per demo
 * user so that their codes can be computed (local/cognito/user-pool.ts).
 */
export async function setVerifiedTotp(
  cognitoService: unknown,
  ctx: unknown,
  where: { userPoolId: string; username: string },
  secret: string,
): Promise<void> {
  const pool = await (cognitoService as LocalCognitoService).getUserPool(ctx, where.userPoolId);
  const user = await pool.getUserByUsername(ctx, where.username);
  if (!user) throw new Error(`no user ${where.username} in the local pool`);
  const current = user.SoftwareTokenMfaConfiguration;
  if (current?.Verified && current.Secret === secret && hasMfa(user)) return;
  await pool.saveUser(ctx, withVerifiedTotp(user, secret, current?.FriendlyDeviceName));
}

export interface MfaOptions {
  /** Milliseconds since the epoch (tests move it past a session's 3 minutes). */
  now?: () => number;
}

/** cognito-local's router with Cognito's MFA as above. */
export function withMfa(
  router: LocalRouter,
  services: LocalServices,
  options: MfaOptions = {},
): LocalRouter {
  const cognito = services.cognito as LocalCognitoService;
  const tokenGenerator = services.tokenGenerator as {
    generate(
      ctx: unknown,
      user: LocalUser,
      groups: readonly string[],
      client: LocalAppClient,
      clientMetadata: unknown,
      source: 'Authentication',
    ): Promise<Tokens>;
  };
  const clock = services.clock as { get(): Date };
  const errors = cognitoLocalErrors();
  const totp = cognitoLocalTotp();
  const now = options.now ?? (() => Date.now());
  const sessions = new Map<string, Session>();

  /** A new Session for the user's next step; expired ones are dropped here, so the map stays small. */
  function open(step: Session['step'], username: string, clientId: string): string {
    const at = now();
    for (const [id, s] of sessions) if (s.expiresAt <= at) sessions.delete(id);
    // Opaque and long, as Cognito's (which are encrypted state of about 900 characters).
    const id = randomBytes(96).toString('base64');
    sessions.set(id, { step, username, clientId, expiresAt: at + AUTH_SESSION_MS });
    return id;
  }

  /** The Session, if it allows `step` now for this client; refused as Cognito refuses it. */
  function take(
    id: unknown,
    steps: readonly Session['step'][],
    clientId: string | undefined,
  ): [string, Session] {
    if (typeof id !== 'string' || !id)
      throw new errors.InvalidParameterError('Missing required parameter Session');
    const session = sessions.get(id);
    if (!session || session.expiresAt <= now() || !steps.includes(session.step)) {
      throw new errors.NotAuthorizedError(INVALID_SESSION);
    }
    if (clientId !== undefined && clientId !== session.clientId)
      throw new errors.NotAuthorizedError(INVALID_SESSION);
    return [id, session];
  }

  /** The session's user, still there and enabled. */
  async function userOf(ctx: unknown, session: Session) {
    const pool = await cognito.getUserPoolForClientId(ctx, session.clientId);
    const user = await pool.getUserByUsername(ctx, session.username);
    if (!user) throw new errors.NotAuthorizedError(INVALID_SESSION);
    if (user.Enabled === false) throw new errors.NotAuthorizedError('User is disabled.');
    return { pool, user };
  }

  function mfaSetup(username: string, clientId: string) {
    return {
      ChallengeName: 'MFA_SETUP',
      ChallengeParameters: { MFAS_CAN_SETUP: CAN_SETUP, USER_ID_FOR_SRP: username },
      Session: open('MFA_SETUP', username, clientId),
    };
  }

  function softwareTokenMfa(user: LocalUser, clientId: string) {
    const device = user.SoftwareTokenMfaConfiguration?.FriendlyDeviceName;
    return {
      ChallengeName: TOTP,
      ChallengeParameters: {
        USER_ID_FOR_SRP: user.Username,
        ...(device ? { FRIENDLY_DEVICE_NAME: device } : {}),
      },
      Session: open(TOTP, user.Username, clientId),
    };
  }

  /** A challenge cognito-local answered: its Session becomes one of ours. */
  function registered(result: Record<string, unknown>, clientId: string): Record<string, unknown> {
    const name = result.ChallengeName;
    const params = result.ChallengeParameters as { USER_ID_FOR_SRP?: string } | undefined;
    if (typeof name !== 'string' || !params?.USER_ID_FOR_SRP) return result;
    if (name !== 'NEW_PASSWORD_REQUIRED' && name !== TOTP)
      throw new errors.UnsupportedError(`the ${name} challenge with MFA (local/cognito/mfa.ts)`);
    return { ...result, Session: open(name, params.USER_ID_FOR_SRP, clientId) };
  }

  const initiateAuth: ReturnType<LocalRouter> = async (ctx, req) => {
    const clientId = String(req.ClientId);
    const params = (req.AuthParameters ?? {}) as { USERNAME?: string; PASSWORD?: string };
    const client = await cognito.getAppClient(ctx, clientId);
    if (req.AuthFlow === 'USER_PASSWORD_AUTH' && client && params.USERNAME && params.PASSWORD) {
      const pool = await cognito.getUserPoolForClientId(ctx, clientId);
      const user = await pool.getUserByUsername(ctx, params.USERNAME);
      if (!user) throw new errors.NotAuthorizedError(WRONG_PASSWORD);
      if (user.UserStatus !== 'RESET_REQUIRED' && user.Password !== params.PASSWORD)
        throw new errors.NotAuthorizedError(WRONG_PASSWORD);
      if (
        user.UserStatus === 'CONFIRMED' &&
        pool.options.MfaConfiguration === 'ON' &&
        !hasMfa(user)
      )
        return mfaSetup(user.Username, clientId);
    }
    const route = router('InitiateAuth');
    return registered((await route(ctx, req)) as Record<string, unknown>, clientId);
  };

  const adminInitiateAuth: ReturnType<LocalRouter> = async (ctx, req) => {
    if (req.AuthFlow === 'ADMIN_USER_PASSWORD_AUTH' || req.AuthFlow === 'ADMIN_NO_SRP_AUTH') {
      const client = await cognito.getAppClient(ctx, String(req.ClientId));
      const flows = client?.ExplicitAuthFlows ?? [];
      if (!flows.includes('ALLOW_ADMIN_USER_PASSWORD_AUTH') && !flows.includes('ADMIN_NO_SRP_AUTH'))
        throw new errors.InvalidParameterError('Auth flow not enabled for this client');
      throw new errors.UnsupportedError(
        'ADMIN_USER_PASSWORD_AUTH with MFA: AdminRespondToAuthChallenge is not emulated',
      );
    }
    return router('AdminInitiateAuth')(ctx, req);
  };

  async function tokensFor(ctx: unknown, req: Record<string, unknown>, session: Session) {
    const { pool, user } = await userOf(ctx, session);
    const client = await cognito.getAppClient(ctx, session.clientId);
    if (!client) throw new errors.NotAuthorizedError();
    const groups = await pool.listUserGroupMembership(ctx, user);
    const tokens = await tokenGenerator.generate(
      ctx,
      user,
      groups,
      client,
      req.ClientMetadata,
      'Authentication',
    );
    await pool.storeRefreshToken(ctx, tokens.RefreshToken, user);
    return { ChallengeParameters: {}, AuthenticationResult: tokens };
  }

  const respondToAuthChallenge: ReturnType<LocalRouter> = async (ctx, req) => {
    const name = String(req.ChallengeName);
    const steps: Session['step'][] =
      name === 'MFA_SETUP' ? ['RESPOND_MFA_SETUP'] : [name as Session['step']];
    const [id, session] = take(req.Session, steps, String(req.ClientId));
    const responses = (req.ChallengeResponses ?? {}) as {
      USERNAME?: string;
      NEW_PASSWORD?: string;
    };
    if (!responses.USERNAME)
      throw new errors.InvalidParameterError('Missing required parameter USERNAME');
    const { pool, user } = await userOf(ctx, session);
    // The USERNAME answered must be the session's user (by any of its names).
    const named = await pool.getUserByUsername(ctx, responses.USERNAME);
    if (named?.Username !== user.Username) throw new errors.NotAuthorizedError(INVALID_SESSION);
    if (name === 'NEW_PASSWORD_REQUIRED' && responses.NEW_PASSWORD !== undefined) {
      const broken = policyBroken(pool.options.Policies?.PasswordPolicy, responses.NEW_PASSWORD);
      if (broken)
        throw new errors.CognitoError(
          'InvalidPasswordException',
          `Password does not conform to policy: ${broken}`,
        );
    }

    if (name === 'MFA_SETUP') {
      if (!user.SoftwareTokenMfaConfiguration?.Verified)
        throw new errors.InvalidParameterError('The user has not verified a software token');
      sessions.delete(id);
      return tokensFor(ctx, req, session);
    }
    // cognito-local checks the answer (the code, the new password); a wrong one throws and the
    // session stays, to be tried again.
    const answer = (await router('RespondToAuthChallenge')(ctx, req)) as {
      AuthenticationResult?: Tokens;
    };
    sessions.delete(id);
    if (name === 'NEW_PASSWORD_REQUIRED') {
      const changed = (await pool.getUserByUsername(ctx, user.Username)) ?? user;
      if (mfaApplies(pool, changed)) {
        // Its tokens are dropped unseen: Cognito asks for the second factor first.
        return hasMfa(changed)
          ? softwareTokenMfa(changed, session.clientId)
          : mfaSetup(changed.Username, session.clientId);
      }
    }
    const refreshToken = answer.AuthenticationResult?.RefreshToken;
    if (refreshToken) {
      const current = (await pool.getUserByUsername(ctx, user.Username)) ?? user;
      await pool.storeRefreshToken(ctx, refreshToken, current);
    }
    return answer;
  };

  const associateSoftwareToken: ReturnType<LocalRouter> = async (ctx, req) => {
    if (req.AccessToken || !req.Session) return router('AssociateSoftwareToken')(ctx, req);
    // Again with the session it gave (a new secret), as before the code is verified.
    const [id, session] = take(req.Session, ['MFA_SETUP', 'VERIFY'], undefined);
    const { pool, user } = await userOf(ctx, session);
    const secret = totp.generateSecret();
    await pool.saveUser(ctx, {
      ...user,
      SoftwareTokenMfaConfiguration: { Secret: secret, Verified: false },
      UserLastModifiedDate: clock.get(),
    });
    sessions.delete(id);
    return { SecretCode: secret, Session: open('VERIFY', user.Username, session.clientId) };
  };

  const verifySoftwareToken: ReturnType<LocalRouter> = async (ctx, req) => {
    if (req.AccessToken || !req.Session) return router('VerifySoftwareToken')(ctx, req);
    if (!req.UserCode)
      throw new errors.InvalidParameterError('Missing required parameter UserCode');
    const [id, session] = take(req.Session, ['VERIFY'], undefined);
    const { pool, user } = await userOf(ctx, session);
    const secret = user.SoftwareTokenMfaConfiguration?.Secret;
    if (!secret || !totp.verify(secret, String(req.UserCode))) {
      throw new errors.CognitoError(
        'EnableSoftwareTokenMFAException',
        'Code mismatch and fail enable Software Token MFA',
      );
    }
    const device = typeof req.FriendlyDeviceName === 'string' ? req.FriendlyDeviceName : undefined;
    await pool.saveUser(ctx, {
      ...withVerifiedTotp(user, secret, device),
      UserLastModifiedDate: clock.get(),
    });
    sessions.delete(id);
    return {
      Status: 'SUCCESS',
      Session: open('RESPOND_MFA_SETUP', user.Username, session.clientId),
    };
  };

  const routes: Record<string, ReturnType<LocalRouter>> = {
    InitiateAuth: initiateAuth,
    AdminInitiateAuth: adminInitiateAuth,
    RespondToAuthChallenge: respondToAuthChallenge,
    AssociateSoftwareToken: associateSoftwareToken,
    VerifySoftwareToken: verifySoftwareToken,
  };
  return (target) => routes[target] ?? router(target);
}
