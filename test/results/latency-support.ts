/** What latency tests compare histograms with: exact percentiles of raw samples, and the HDR's precision. */
import { expect } from "vitest";

/** 3 significant digits: a bucket is at most 1/1024 of its values wide. */
export const HDR_PRECISION = 1e-3;

const QUANTILE_PER_MILLE = { p50: 500, p90: 900, p99: 990, "p99.9": 999 } as const;

/**
 * The nearest-rank percentile (the ⌈q·n⌉-th smallest sample), its rank computed in integers so that no
 * rounding moves it.
 */
export function exactPercentile(samples: readonly number[], p: keyof typeof QUANTILE_PER_MILLE): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((QUANTILE_PER_MILLE[p] * sorted.length) / 1000));
  return sorted[rank - 1]!;
}

/**
 * A sample count n with q·n never a whole number for q = .5, .9, .99, .999 (odd, not a multiple of 5):
 * a percentile's rank is then the same for any rounding of q·n, the HDR's and a reference's alike.
 */
export const rankSafe = (n: number) => n % 2 !== 0 && n % 5 !== 0;

export function expectWithinPrecision(actual: number, expected: number, what: string): void {
  // Multiplied out: an expected 0 (a bin of fio's below 1 ns) must be met exactly.
  expect(Math.abs(actual - expected), `${what}: ${actual} vs ${expected}`).toBeLessThanOrEqual(
    HDR_PRECISION * expected,
  );
}
