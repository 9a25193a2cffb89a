/** Small statistics for the benchmark: percentiles by rank on sorted samples. */

export function sorted(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

/** The p-th percentile (0..100), nearest rank: a value that was actually measured. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const s = sorted(values);
  const rank = Math.ceil((p / 100) * s.length);
  return s[Math.min(s.length - 1, Math.max(0, rank - 1))]!;
}

export const median = (values: readonly number[]): number => {
  const s = sorted(values);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

export interface Summary {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  min: number;
  max: number;
  mean: number;
}

export function summarize(values: readonly number[]): Summary {
  return {
    n: values.length,
    p50: median(values),
    p90: percentile(values, 90),
    p99: percentile(values, 99),
    min: Math.min(...values),
    max: Math.max(...values),
    mean: values.reduce((a, b) => a + b, 0) / values.length,
  };
}
