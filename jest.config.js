/**
 * Jest runs the TypeScript sources as native ES modules (middy 7 is ESM-only), transpiled
 * file by file by ts-jest (tsconfig's isolatedModules: no type check here; `npm run lint` does it).
 * ts-jest rather than a native transpiler: the registry this project installs from lacks the
 * other platforms' binaries of native packages, which `npm ci` then refuses.
 */
export default {
  // What the code under test logs is shown only for a failing test: see the environment.
  testEnvironment: '<rootDir>/test/support/quiet-environment.ts',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, diagnostics: false }],
  },
  // otplib (cognito-local's TOTP, sign-in/totp.ts) pulls in ESM-only packages that jest 29 cannot
  // require(): the stub is otplib's own TOTP with CommonJS plugins, held to the real one by a test.
  moduleNameMapper: { '^otplib$': '<rootDir>/test/support/otplib-stub.cjs' },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testTimeout: 30000,
  maxWorkers: 2,
};
