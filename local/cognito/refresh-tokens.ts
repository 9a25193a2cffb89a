/**
 * The refresh tokens the local Cognito keeps, bounded (issue 30). cognito-local 5.3.0 appends
 * each sign-in's refresh token to the user's `RefreshTokens` in the pool's JSON file under
 * `.local/cognito/db/`. It never drops one, nor checks their expiry, and it rewrites the whole
 * file at every sign-in. The file would only grow, and every sign-in would write more of it
 * (docs/decisions/0013-every-store-has-a-bound.md).
 *
 * The whole workaround is here. cognito-local takes its user pool service factory as a
 * constructor argument, and server.ts passes it this wrapper. Its services drop the user's oldest
 * tokens in `storeRefreshToken` before cognito-local appends the new one, and prune a pool file
 * written before the bound when they are created. REFRESH_TOKEN_AUTH finds the user by a
 * token in that list, so the newest MAX_REFRESH_TOKENS_PER_USER sign-ins of a user can refresh.
 * An older one is answered NotAuthorizedException, as a revoked token is. Remove this file when
 * cognito-local bounds or expires the tokens it stores.
 */

/** Sign-ins of one user whose refresh token still works: more than a person's devices at once. */
export const MAX_REFRESH_TOKENS_PER_USER = 20;

interface StoredUser {
  Username: string;
  RefreshTokens?: string[];
}

/** The parts of cognito-local's UserPoolService (services/userPoolService.d.ts) used here. */
interface UserPoolService {
  storeRefreshToken(ctx: unknown, refreshToken: string, user: StoredUser): Promise<void>;
  listUsers(ctx: unknown): Promise<StoredUser[]>;
  saveUser(ctx: unknown, user: StoredUser): Promise<void>;
}

/** cognito-local's UserPoolServiceFactory: one service per pool, at start and on CreateUserPool. */
interface UserPoolServiceFactory {
  create(ctx: unknown, clientsDataStore: unknown, defaultOptions: unknown): Promise<unknown>;
}

/** `factory`'s user pool services, each keeping at most `max` refresh tokens per user. */
export function withBoundedRefreshTokens(
  factory: unknown,
  max = MAX_REFRESH_TOKENS_PER_USER,
): UserPoolServiceFactory {
  const inner = factory as UserPoolServiceFactory;
  return {
    async create(ctx, clientsDataStore, defaultOptions) {
      const pool = (await inner.create(ctx, clientsDataStore, defaultOptions)) as UserPoolService;
      const store = pool.storeRefreshToken.bind(pool);
      pool.storeRefreshToken = (ctx, refreshToken, user) => {
        // Trimmed in place, as cognito-local appends. Two sign-ins of one user at once share this
        // array (the stored user object), so neither's token is lost to the other's save.
        const tokens = user.RefreshTokens;
        if (Array.isArray(tokens) && tokens.length >= max)
          tokens.splice(0, tokens.length - max + 1);
        return store(ctx, refreshToken, user);
      };
      for (const user of await pool.listUsers(ctx)) {
        const tokens = user.RefreshTokens;
        if (Array.isArray(tokens) && tokens.length > max)
          await pool.saveUser(ctx, { ...user, RefreshTokens: tokens.slice(-max) });
      }
      return pool;
    },
  };
}
