/**
 * What a command that a test starts in a clean environment still takes from the run: PATH (the
 * pinned Node.js first) and the run's compile cache (./global-setup.js).
 */
const { PATH, NODE_COMPILE_CACHE } = process.env;

export const CLEAN_ENV: NodeJS.ProcessEnv = {
  PATH,
  ...(NODE_COMPILE_CACHE ? { NODE_COMPILE_CACHE } : {}),
};
