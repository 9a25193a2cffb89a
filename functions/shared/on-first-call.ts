/**
 * A handler built on its first call from what `create` makes, for every function: importing an
 * entry file has no side effects (tests import createHandler without setting process.env), and
 * in Lambda the first call follows init at once, so the work is the same (bench/RESULTS.md); the
 * clients then live as long as the execution environment.
 */
export function onFirstCall<A extends unknown[], R>(
  create: () => (...args: A) => R,
): (...args: A) => R {
  let handler: ((...args: A) => R) | undefined;
  return (...args) => (handler ??= create())(...args);
}
