/**
 * Jest runs the TypeScript sources as native ES modules (middy 7 is ESM-only), their types
 * stripped file by file by esbuild (test/support/transform.js; `npm run lint` type-checks).
 */
export default {
  // What the code under test logs is shown only for a failing test: see the environment.
  testEnvironment: '<rootDir>/test/support/quiet-environment.ts',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': '<rootDir>/test/support/transform.js',
  },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  globalSetup: '<rootDir>/test/support/global-setup.js',
  globalTeardown: '<rootDir>/test/support/global-teardown.js',
  testSequencer: '<rootDir>/test/support/sequencer.js',
  testTimeout: 30000,
  // One per core: the run is CPU-bound (measured beside two busy loops, a third worker added
  // worker time and saved no wall time).
  maxWorkers: 2,
  // How long a finished worker may take to exit before jest kills it and prints "A worker process
  // has failed to exit gracefully" (jest's default: 500 ms). Nothing leaks, but after the synth
  // tests a worker holds a lot of memory (jest's ES-module registries are not all freed between
  // files), and the kernel freeing it beside two busy loops on two cores takes longer than that
  // (docs/development.md). A worker kept alive by a leaked handle never exits, so it is still
  // killed, and the line still printed.
  workerGracefulExitTimeout: 5000,
};
