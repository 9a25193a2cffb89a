/**
 * The Chromium the browser tests drive with playwright-core: CHROMIUM_PATH, or Debian's chromium
 * on the PATH (.ci/run installs it). Without one the browser tests are skipped and say so.
 */
import { execFileSync } from 'node:child_process';

export function findChromium(): string | undefined {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    try {
      return execFileSync('which', [name], { encoding: 'utf8' }).trim() || undefined;
    } catch {
      // not this one
    }
  }
  return undefined;
}

/** `describe` when a Chromium is here, else `describe.skip` with a warning naming what is skipped. */
export function describeWithChromium(what: string): [jest.Describe, string | undefined] {
  const executablePath = findChromium();
  if (!executablePath)
    console.warn(
      `SKIPPED ${what}: no Chromium found (install it: apt-get install -y chromium, or set CHROMIUM_PATH)`,
    );
  return [executablePath ? describe : describe.skip, executablePath];
}

/** As root in CI, Chromium runs only without its sandbox. */
export const CHROMIUM_ARGS = ['--no-sandbox'];

/**
 * A browser test's limit: each drives pages through sign-in and lookups in seconds on a quiet
 * machine, but beside the rest of the run and two busy loops one passed 60 s. What these tests
 * assert is what the page shows, never how fast.
 */
export const BROWSER_TEST_TIMEOUT_MS = 180_000;
