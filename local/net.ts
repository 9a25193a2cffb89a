/** Small networking helpers shared by the local emulators. */
import { createServer } from 'node:net';

export const LOCALHOST = '127.0.0.1';

/**
 * How long the local tools wait for one request to an emulator (DynamoDB Local, the local S3,
 * which waits by the SDK's default: no limit). An emulator on a busy machine can take seconds
 * where AWS takes milliseconds; the functions in a stage keep their own, AWS-sized, timeouts.
 */
export const EMULATOR_REQUEST_TIMEOUT_MS = 60_000;

/** Asks the OS for a port that is free on every interface right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    // No host: listen on the unspecified address, so the port is free on every interface
    // (DynamoDB Local cannot be told to bind to 127.0.0.1 only).
    server.listen(0, () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('Could not determine a free port'));
      });
    });
  });
}

/** Fails with a clear message when `port` is already taken (e.g. by another `npm start`). */
export function assertPortFree(port: number, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        new Error(
          error.code === 'EADDRINUSE'
            ? `Port ${port} for ${what} is already in use (is another local rig running?)`
            : `Cannot use port ${port} for ${what}: ${error.message}`,
        ),
      );
    });
    server.listen(port, () => server.close(() => resolve()));
  });
}

/** `port` when given (and not 0), after checking it is free; else a free port. */
export async function choosePort(port: number | undefined, what: string): Promise<number> {
  if (port === undefined || port === 0) return freePort();
  await assertPortFree(port, what);
  return port;
}

/** Polls `probe` until it resolves true, or rejects after `timeoutMs` (or when `abort` says so). */
export async function waitUntil(
  probe: () => Promise<boolean>,
  {
    timeoutMs,
    intervalMs = 100,
    what,
    abort,
  }: { timeoutMs: number; intervalMs?: number; what: string; abort?: () => Error | undefined },
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const aborted = abort?.();
    if (aborted) throw aborted;
    if (await probe().catch(() => false)) return;
    if (Date.now() > deadline)
      throw new Error(`${what} did not become ready within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
