/** Statistics over repetitions: what a reader needs to trust (or distrust) a number. */

export interface Stats {
  n: number;
  mean: number;
  median: number;
  stddev: number;
  min: number;
  max: number;
  /** 95% confidence interval of the mean (Student's t); absent below 2 samples. */
  ci95?: [number, number];
  /** Coefficient of variation: stddev / mean. */
  cv: number;
  /** Indexes (into the input) of values more than 3.5 scaled MADs from the median. */
  outliers: number[];
}

// Two-sided 95% critical values of Student's t for 1…30 degrees of freedom.
const T95 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131,
  2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

export const tCritical95 = (df: number) => T95[df - 1] ?? 1.96;

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function summarize(values: readonly number[]): Stats | undefined {
  const n = values.length;
  if (n === 0) return undefined;
  const mean = values.reduce((a, b) => a + b, 0) / n;
  const variance = n > 1 ? values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / (n - 1) : 0;
  const stddev = Math.sqrt(variance);
  const mid = median(values);
  const mad = median(values.map((v) => Math.abs(v - mid))) * 1.4826;
  const outliers = mad > 0 ? values.flatMap((v, i) => (Math.abs(v - mid) / mad > 3.5 ? [i] : [])) : [];
  const stats: Stats = {
    n,
    mean,
    median: mid,
    stddev,
    min: Math.min(...values),
    max: Math.max(...values),
    cv: mean !== 0 ? stddev / Math.abs(mean) : 0,
    outliers,
  };
  if (n > 1) {
    const half = (tCritical95(n - 1) * stddev) / Math.sqrt(n);
    stats.ci95 = [mean - half, mean + half];
  }
  return stats;
}

export const HIGH_CV = 0.1;
export const MIN_SAMPLES_FOR_CI = 3;

/** Plain-language warnings about a set of repetitions. */
export function statWarnings(stats: Stats, metric: string): string[] {
  const warnings: string[] = [];
  if (stats.n < MIN_SAMPLES_FOR_CI) {
    warnings.push(
      `${metric}: only ${stats.n} repetition${stats.n === 1 ? "" : "s"}; a confidence interval needs at least ${MIN_SAMPLES_FOR_CI}`,
    );
  }
  if (stats.cv > HIGH_CV) warnings.push(`${metric}: high variance (CV ${(stats.cv * 100).toFixed(1)}%)`);
  if (stats.outliers.length > 0) {
    warnings.push(
      `${metric}: outlier repetition${stats.outliers.length > 1 ? "s" : ""} ${stats.outliers.map((i) => i + 1).join(", ")}`,
    );
  }
  return warnings;
}
