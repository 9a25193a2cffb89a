import { REFERENCE } from './bundle-names';
import { median } from './stats';

/** Runs `runs` rounds of `names`, rotating the order each round to cancel drift. */
export async function rounds<T>(
  runs: number,
  names: string[],
  one: (name: string) => Promise<T>,
): Promise<Record<string, T[]>> {
  const out: Record<string, T[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let i = 0; i < runs; i += 1) {
    const order = names.map((_, k) => names[(k + i) % names.length]!);
    for (const name of order) out[name]!.push(await one(name));
  }
  return out;
}

/**
 * Each name's value over the reference's in the same round, the median of those ratios: paired,
 * so that a busy moment on the machine falls on both sides of a ratio.
 */
export function pairedRatio<T>(runs: Record<string, T[]>, name: string, value: (run: T) => number) {
  const ref = runs[REFERENCE]!;
  return median(runs[name]!.map((run, i) => value(run) / value(ref[i]!)));
}
