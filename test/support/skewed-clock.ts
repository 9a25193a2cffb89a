/**
 * Preloaded into a child process (`node --import ./test/support/skewed-clock.ts`, run by Node.js's
 * own type stripping): the machine's wall clock is CLOCK_SKEW_MS milliseconds off (negative:
 * behind), as an operator's laptop may be. Timers and `performance.now()` run as they do.
 */
const SKEW = Number(process.env.CLOCK_SKEW_MS ?? '0');
const RealDate = Date;

globalThis.Date = class extends RealDate {
  constructor(...args: unknown[]) {
    if (args.length) super(...(args as [string]));
    else super(RealDate.now() + SKEW);
  }
  static override now(): number {
    return RealDate.now() + SKEW;
  }
} as DateConstructor;
