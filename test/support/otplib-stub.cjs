/**
 * Stands in for otplib under jest only. cognito-local loads it for TOTP MFA, which the local
 * stack never uses; its ESM-only dependencies cannot be require()d by jest 29's module system
 * (Node 24 itself can, so `npm start` uses the real package).
 */
const unavailable = () => {
  throw new Error('TOTP is not available in the test stack');
};
module.exports = {
  generateSecret: unavailable,
  generateSync: unavailable,
  verifySync: unavailable,
};
