/**
 * The JWT authorizer, as API Gateway runs it in front of every route. The token comes from the
 * Authorization header, "Bearer " optional. It passes when it is signed RS256 by a key of the user
 * pool's JWKS, carries the pool's issuer, is neither expired nor issued in the future, and names
 * one of the app clients in `aud` (or, without `aud`, in `client_id`).
 */
import { JwtVerifier } from 'aws-jwt-verify';
import type { Jwks } from 'aws-jwt-verify/jwk';
import type { JwtPayload } from 'aws-jwt-verify/jwt-model';

export interface AuthorizerOptions {
  /** Expected `iss`: the user pool's issuer URL. */
  issuer: string;
  /** App client ids; a token's `aud` (or, without `aud`, its `client_id`) must be one of them. */
  audience: readonly string[];
  /** Fetched once at start-up (plain HTTP is fine: aws-jwt-verify is handed the keys). */
  jwksUri: string;
}

/** The verified token's claims; undefined for no token or an invalid one (API Gateway's 401). */
export type Authorize = (authorization: string | undefined) => JwtPayload | undefined;

/**
 * aws-jwt-verify only downloads JWKS over HTTPS, so the keys are fetched here and handed over;
 * verifySync then never goes to the network.
 */
async function fetchJwks(jwksUri: string): Promise<Jwks> {
  const response = await fetch(jwksUri);
  if (!response.ok)
    throw new Error(`Cannot fetch the JWKS from ${jwksUri}: HTTP ${response.status}`);
  return (await response.json()) as Jwks;
}

/** API Gateway's checks beyond signature, issuer and expiry, which aws-jwt-verify makes. */
function checkClaims(
  audience: ReadonlySet<string>,
  { header, payload }: { header: { alg?: string }; payload: JwtPayload },
): void {
  const now = Date.now() / 1000;
  if (header.alg !== 'RS256') throw new Error('alg');
  if (typeof payload.exp !== 'number') throw new Error('exp');
  if (typeof payload.iat === 'number' && payload.iat > now) throw new Error('iat');
  const aud = payload.aud;
  const matches =
    aud !== undefined
      ? (Array.isArray(aud) ? aud : [aud]).some((a) => audience.has(a))
      : typeof payload.client_id === 'string' && audience.has(payload.client_id);
  if (!matches) throw new Error('audience');
}

export async function createAuthorizer(options: AuthorizerOptions): Promise<Authorize> {
  const jwks = await fetchJwks(options.jwksUri);
  const verifier = JwtVerifier.create({
    issuer: options.issuer,
    jwksUri: options.jwksUri,
    audience: null, // checked in checkClaims: `aud`, or `client_id` when there is no `aud`
  });
  verifier.cacheJwks(jwks);
  const audience = new Set(options.audience);
  return (authorization) => {
    const token = (authorization ?? '').replace(/^Bearer\s+/i, '').trim();
    if (!token) return undefined;
    try {
      return verifier.verifySync(token, {
        customJwtCheck: (parts) => checkClaims(audience, parts),
      });
    } catch {
      return undefined;
    }
  };
}
