/** Cognito's clock from the Date of its answers (commands/access/server-clock.ts), against a fake monotonic clock. */
import { createServerClock, NoServerTimeError } from '../../commands/access/server-clock.ts';

test('the last second is the Date of the latest answer, whatever the local wall clock says', () => {
  const clock = createServerClock(() => 0);
  expect(() => clock.lastSecond()).toThrow(NoServerTimeError);
  clock.observe(undefined);
  clock.observe('not a date');
  expect(() => clock.lastSecond()).toThrow(NoServerTimeError);
  clock.observe('Wed, 25 Nov 2026 19:00:00 GMT');
  expect(clock.lastSecond()).toBe(Date.parse('2026-11-25T19:00:00Z') / 1000);
});

test('waitUntil(S + 1) waits out what is left of the second, by the monotonic clock', async () => {
  let now = 1000;
  const clock = createServerClock(() => now);
  clock.observe('Wed, 25 Nov 2026 19:00:00 GMT');
  const s = clock.lastSecond();
  now += 950; // 950 ms since the answer: at most 50 ms of the second left
  const started = performance.now();
  await clock.waitUntil(s + 1);
  const waited = performance.now() - started;
  expect(waited).toBeGreaterThanOrEqual(40);
  expect(waited).toBeLessThan(500);
  now += 1000; // past it: no wait
  const again = performance.now();
  await clock.waitUntil(s + 1);
  expect(performance.now() - again).toBeLessThan(30);
});

test('an answer dated a second earlier (another host) never moves the clock back', () => {
  const clock = createServerClock(() => 0);
  clock.observe('Wed, 25 Nov 2026 19:00:05 GMT');
  clock.observe('Wed, 25 Nov 2026 19:00:04 GMT');
  expect(clock.lastSecond()).toBe(Date.parse('2026-11-25T19:00:05Z') / 1000);
  clock.observe('Wed, 25 Nov 2026 19:00:06 GMT');
  expect(clock.lastSecond()).toBe(Date.parse('2026-11-25T19:00:06Z') / 1000);
});
