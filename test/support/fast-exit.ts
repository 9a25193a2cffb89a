/**
 * Lets a jest worker leave within the 500 ms jest-worker gives it after the run (its
 * FORCE_EXIT_DELAY, fixed), which it otherwise misses on a busy machine, printing "A worker
 * process has failed to exit gracefully". Nothing leaks: what takes the time is the kernel
 * freeing the worker's memory (about 600 MB after the stack's synth tests) while other processes
 * hold the cores. Measured on this 2-core machine, a plain Node.js process of 600 MB takes
 * 112-134 ms from its `exit` event to gone when quiet, 421-459 ms beside two busy loops (more
 * with the rest of the run beside it), and 144-223 ms beside them when it runs at the highest
 * priority. So once the worker's work is done (its event loop empty after jest's last message),
 * it asks for that priority. Only a process allowed to raise its own priority gets it (root, as
 * CI runs); elsewhere nothing changes. Rarer, not gone: a whole run beside two busy loops still
 * printed the line once (docs/development.md).
 */
import { setPriority, constants } from 'node:os';

const INSTALLED = Symbol.for('currency-exchange.fast-exit');

export function exitAtHighPriority(): void {
  const registry = globalThis as unknown as Record<symbol, boolean>;
  if (registry[INSTALLED]) return;
  registry[INSTALLED] = true;
  process.once('beforeExit', () => {
    try {
      setPriority(constants.priority.PRIORITY_HIGHEST);
    } catch {
      // Not allowed here: the worker leaves at its usual priority.
    }
  });
}
