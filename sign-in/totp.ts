/**
 * TOTP codes as Cognito and cognito-local compute them (RFC 6238: SHA-1, 6 digits, 30 s steps,
 * base32 secrets), for the tools that answer a SOFTWARE_TOKEN_MFA challenge themselves: the
 * local demo users' codes (`npm run token`), the smoke test's own enrolment.
 */
import { generateSecret, generateSync } from 'otplib';

/** Seconds each code lasts (Cognito's TOTP period). */
export const TOTP_PERIOD_SECONDS = 30;

/** The code of `secret` (base32, as AssociateSoftwareToken's SecretCode) at `atMs`. */
export function totpCode(secret: string, atMs: number = Date.now()): string {
  return generateSync({
    secret,
    algorithm: 'sha1',
    digits: 6,
    period: TOTP_PERIOD_SECONDS,
    epoch: Math.floor(atMs / 1000),
  });
}

/** A new base32 secret of 20 random bytes, as Cognito's and cognito-local's. */
export function newTotpSecret(): string {
  return generateSecret({ length: 20 });
}

/** Seconds left before the code of `atMs` changes. */
export function secondsLeft(atMs: number = Date.now()): number {
  return TOTP_PERIOD_SECONDS - (Math.floor(atMs / 1000) % TOTP_PERIOD_SECONDS);
}
