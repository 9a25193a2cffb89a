import { REFERENCE } from './bundle-names.ts';
import { median } from './stats.ts';

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

/** Consecutive blocks of rounds whose medians show how far the figure moves within one run. */
export const BLOCKS = 5;

/** A paired ratio, and the lowest and highest median of its blocks of rounds. */
export interface Paired {
  ratio: number;
  low: number;
  high: number;
  blocks: number;
}

/**
 * Each name's value over the reference's in the same round, the median of those ratios: paired,
 * so that a busy moment on the machine falls on both sides of a ratio. The rounds cut into
 * BLOCKS consecutive blocks give the spread: a figure whose blocks disagree is not yet steady.
 */
export function pairedRatio<T>(
  runs: Record<string, T[]>,
  name: string,
  value: (run: T) => number,
): Paired {
  const ref = runs[REFERENCE]!;
  const ratios = runs[name]!.map((run, i) => value(run) / value(ref[i]!));
  const blocks = Math.min(BLOCKS, ratios.length);
  const size = ratios.length / blocks;
  const medians = Array.from({ length: blocks }, (_, b) =>
    median(ratios.slice(Math.round(b * size), Math.round((b + 1) * size))),
  );
  return { ratio: median(ratios), low: Math.min(...medians), high: Math.max(...medians), blocks };
}
