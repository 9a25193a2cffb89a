/**
 * How a diligent member of staff reads (the read-budget store's long run, SPEC 8): three or four
 * look-ups spread over each working day of a year, on either route, and every tenth day one
 * exactly `slots` windows after the last, so that the counter's slot holds an older window's
 * count. Deterministic, so that every run reads the same year. `npm run bench` (the cost
 * section) reads the same year as the long-run test.
 */
export interface SporadicRead {
  /** Epoch seconds. */
  seconds: number;
  entity: 'transaction' | 'customer';
}

const DAY = 86_400;

export function sporadicYear(start: number, windowSeconds: number, slots: number): SporadicRead[] {
  let seed = 42;
  const next = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  const reads: SporadicRead[] = [];
  for (let day = 0; day < 365; day += 1) {
    if (day % 7 >= 5) continue; // weekends off
    const opening = start + day * DAY + 9 * 3600;
    const times = Array.from(
      { length: 3 + (day % 2) },
      () => opening + Math.floor(next() * 8 * 3600),
    );
    times.sort((a, b) => a - b);
    if (day % 10 === 0) times.push(times.at(-1)! + slots * windowSeconds);
    for (const [k, seconds] of times.entries())
      reads.push({ seconds, entity: k % 3 === 2 ? 'customer' : 'transaction' });
  }
  return reads;
}
