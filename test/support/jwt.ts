/**
 * Hostile tokens for the authorizer tests: JWTs crafted with cognito-local's own signing key (so
 * that only the claim under test differs from a valid token), with another key, unsigned, or
 * signed with the pool's public key as an HMAC secret.
 */
import { createHmac, createPublicKey, generateKeyPairSync, sign } from 'node:crypto';
import { createRequire } from 'node:module';

export const b64url = (value: object | string): string =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** cognito-local's RS256 signing key, the one its JWKS publishes under kid `CognitoLocal`. */
export function cognitoLocalPrivateKey(): string {
  const require = createRequire(import.meta.url);
  return (require('cognito-local/lib/keys/cognitoLocal.private.json') as { pem: string }).pem;
}

/** An RS256 JWT signed with `key` (by default cognito-local's own signing key). */
export function craft(payload: object, options: { key?: string; header?: object } = {}): string {
  const pem = options.key ?? cognitoLocalPrivateKey();
  const head = b64url({ alg: 'RS256', typ: 'JWT', kid: 'CognitoLocal', ...options.header });
  const body = b64url(payload);
  const signature = sign('RSA-SHA256', Buffer.from(`${head}.${body}`), pem).toString('base64url');
  return `${head}.${body}.${signature}`;
}

/** A fresh RSA key that is not the pool's, in PEM. */
export function otherRsaKey(): string {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
}

/** `alg: none`, no signature. */
export function unsigned(payload: object, alg = 'none'): string {
  return `${b64url({ alg, typ: 'JWT', kid: 'CognitoLocal' })}.${b64url(payload)}.`;
}

/** The key-confusion attack: HS256 with the pool's public key (PEM text) as the HMAC secret. */
export function hmacWithPublicKey(payload: object): string {
  const publicPem = createPublicKey(cognitoLocalPrivateKey())
    .export({ type: 'spki', format: 'pem' })
    .toString();
  const head = b64url({ alg: 'HS256', typ: 'JWT', kid: 'CognitoLocal' });
  const body = b64url(payload);
  const signature = createHmac('sha256', publicPem).update(`${head}.${body}`).digest('base64url');
  return `${head}.${body}.${signature}`;
}

export function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<
    string,
    unknown
  >;
}

/** A real token whose payload is replaced, keeping its header and its (now wrong) signature. */
export function withEditedPayload(
  token: string,
  edit: (claims: Record<string, unknown>) => object,
) {
  const [head, , signature] = token.split('.');
  return `${head}.${b64url(edit(claimsOf(token)))}.${signature}`;
}

/**
 * The claims of a valid access token of `clientId` at `issuer`; `overrides` with an undefined
 * value removes that claim.
 */
export function accessClaims(
  issuer: string,
  clientId: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return {
    sub: '00000000-0000-0000-0000-000000000001',
    'cognito:groups': ['customer-readers'],
    token_use: 'access',
    scope: 'aws.cognito.signin.user.admin',
    client_id: clientId,
    iss: issuer,
    iat: now,
    exp: now + 300,
    ...overrides,
  };
}
