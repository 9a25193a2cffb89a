/**
 * What the page reads of its own tokens: when the access token expires, whether its user may
 * search customers (to offer only the searches the API will answer), and who is signed in (a
 * printed record names who printed it). The API decides access; nothing here is trusted by it.
 */
import { CUSTOMER_READERS_GROUP } from '../core/groups.ts';

export type Claims = Readonly<Record<string, unknown>>;

/** A JWT's payload, unverified (the page holds it from Cognito); undefined when unreadable. */
export function claimsOf(token: string): Claims | undefined {
  const payload = token.split('.')[1];
  if (!payload) return undefined;
  try {
    const binary = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
    // UTF-8: an e-mail or name claim may hold any character.
    const json = new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
    const claims = JSON.parse(json) as unknown;
    return typeof claims === 'object' && claims !== null && !Array.isArray(claims)
      ? (claims as Claims)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the access token names the group that may read customers (SPEC 1). */
export function mayReadCustomers(claims: Claims | undefined): boolean {
  const groups = claims?.['cognito:groups'];
  return Array.isArray(groups) && groups.includes(CUSTOMER_READERS_GROUP);
}

/**
 * Who is signed in, as staff know them: the ID token's e-mail (in a stage the Cognito username
 * is an opaque id), else the access token's username, else what was typed at sign-in.
 */
export function signedInAs(
  idClaims: Claims | undefined,
  accessClaims: Claims | undefined,
  typed: string,
): string {
  for (const value of [idClaims?.email, accessClaims?.username])
    if (typeof value === 'string' && value !== '') return value;
  return typed;
}
