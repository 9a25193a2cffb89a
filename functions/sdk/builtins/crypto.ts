/** `node:crypto` in the bundles, without its ES module facade (../README.md). */
const crypto = process.getBuiltinModule('node:crypto');
export default crypto;
export const {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  createSecretKey,
  getRandomValues,
  randomBytes,
} = crypto;
