/**
 * Cognito's clock, as `npm run access` sees it (SPEC 8). A token's `iat` is stamped by Cognito,
 * so the not-before instant the command writes must come from Cognito's clock, not from the
 * operator's machine, whose clock may be minutes off. Every Cognito answer carries an HTTP `Date`
 * header (whole seconds, rounded down); a middleware on the client records the highest one with
 * the monotonic instant it arrived, which no setting of the machine's clock moves.
 *
 * Rounding: a response dated S was made at a server time in [S, S+1), after the request arrived,
 * so every token issued before the request was sent has iat <= S, and `S + 1` voids them all.
 * From the arrival of that response, the server's clock is at least S plus the time elapsed
 * since, so `waitUntil(S + 1)` waits at most 1 s and then every new token has iat >= S + 1.
 */
import type { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';

export class NoServerTimeError extends Error {
  override readonly name = 'NoServerTimeError';
}

export interface ServerClock {
  /** The highest second of Cognito's answers (epoch seconds); throws if none had a Date. */
  lastSecond(): number;
  /** Resolves once Cognito's clock has certainly reached `epochSecond`. */
  waitUntil(epochSecond: number): Promise<void>;
}

/** Monotonic milliseconds: `performance.now()` by default, a test's elsewhere. */
type Monotonic = () => number;

interface Seen {
  readonly second: number;
  readonly at: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A clock fed by `observe`: the HTTP Date header of each answer and when it arrived. */
export function createServerClock(monotonic: Monotonic = () => performance.now()) {
  let last: Seen | undefined;
  /** The least the server's clock can read now, in epoch milliseconds. */
  const lowerBound = (seen: Seen) => seen.second * 1000 + (monotonic() - seen.at);
  const clock: ServerClock & { observe(date: string | undefined): void } = {
    observe(date) {
      const ms = date === undefined ? NaN : Date.parse(date);
      if (Number.isNaN(ms)) return;
      // The highest second seen, not the latest: hosts a second apart never move it back.
      const second = Math.floor(ms / 1000);
      if (!last || second >= last.second) last = { second, at: monotonic() };
    },
    lastSecond() {
      if (!last) {
        throw new NoServerTimeError(
          'Cognito answered without a Date header, so the time to void tokens from is unknown',
        );
      }
      return last.second;
    },
    async waitUntil(epochSecond) {
      if (!last) throw new NoServerTimeError('No Cognito answer yet to tell the time by');
      const wait = epochSecond * 1000 - lowerBound(last);
      if (wait > 0) await sleep(wait);
    },
  };
  return clock;
}

/** The client's answers, failed ones included, feed the clock (one middleware per client). */
export function attachServerClock(
  client: CognitoIdentityProviderClient,
  monotonic?: Monotonic,
): ServerClock {
  const clock = createServerClock(monotonic);
  client.middlewareStack.add(
    (next) => async (args) => {
      try {
        const out = await next(args);
        clock.observe(dateHeader(out.response));
        return out;
      } catch (error) {
        clock.observe(dateHeader((error as { $response?: unknown }).$response));
        throw error;
      }
    },
    // Inside the deserializer: the raw HTTP response, before an error answer is parsed.
    { step: 'deserialize', priority: 'low', name: 'serverClockMiddleware' },
  );
  return clock;
}

function dateHeader(response: unknown): string | undefined {
  const headers = (response as { headers?: Record<string, string> } | undefined)?.headers;
  return headers?.date ?? headers?.Date;
}
