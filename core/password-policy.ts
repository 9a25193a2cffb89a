/**
 * The staff password rules, in one place: the stage's user pool (lib/identity.ts) and the local
 * one (local/cognito/user-pool.ts) hold new passwords to them, so a password the local rig's first
 * sign-in takes is one a stage takes too. Plain values: the local rig reads them without
 * aws-cdk-lib.
 */
export const PASSWORD_POLICY = {
  minLength: 12,
  requireLowercase: true,
  requireUppercase: true,
  requireDigits: true,
  requireSymbols: true,
} as const;
