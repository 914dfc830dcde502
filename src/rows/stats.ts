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

/** The median of at least one value, by selection (the values are copied, not reordered). */
export function median(values: ArrayLike<number>): number {
  return middle(copied(values));
}

/**
 * A copy of `values` in one reused buffer (as large as the largest sample so far), for a selection to
 * reorder: a fresh typed array per sample is memory outside the heap, and a comparison of 10,000 cases
 * summarizes some 300,000 samples — allocating and collecting them took a quarter of the time.
 */
function copied(values: ArrayLike<number>): Float64Array {
  if (scratch.length < values.length) scratch = new Float64Array(Math.max(values.length, 2 * scratch.length));
  const view = scratch.subarray(0, values.length);
  view.set(values);
  return view;
}
let scratch = new Float64Array(1024);

/**
 * The largest of `values`, or `floor` when there are none or all are smaller. A loop, not
 * `Math.max(...values)`: spreading passes every value on the stack, which overflows past ~120,000 values
 * (a repetition's requests, a series' points).
 */
export function maxOf(values: Iterable<number>, floor = -Infinity): number {
  let max = floor;
  for (const v of values) if (v > max) max = v;
  return max;
}

/** The smallest of `values`, or `ceiling` when there are none or all are larger (see maxOf). */
export function minOf(values: Iterable<number>, ceiling = Infinity): number {
  let min = ceiling;
  for (const v of values) if (v < min) min = v;
  return min;
}

/** Loops and selection instead of sorts: a million values summarize in well under a second. */
export function summarize(values: readonly number[]): Stats | undefined {
  const n = values.length;
  if (n === 0) return undefined;
  let sum = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) {
    sum += v;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const mean = sum / n;
  let squares = 0;
  for (const v of values) squares += (v - mean) ** 2;
  const stddev = n > 1 ? Math.sqrt(squares / (n - 1)) : 0;
  const deviations = copied(values);
  const mid = middle(deviations);
  for (let i = 0; i < n; i++) deviations[i] = Math.abs(values[i]! - mid);
  const mad = middle(deviations) * 1.4826;
  const outliers: number[] = [];
  if (mad > 0) values.forEach((v, i) => Math.abs(v - mid) / mad > 3.5 && outliers.push(i));
  const stats: Stats = {
    n,
    mean,
    median: mid,
    stddev,
    min,
    max,
    cv: mean !== 0 ? stddev / Math.abs(mean) : 0,
    outliers,
  };
  if (n > 1) {
    const half = (tCritical95(n - 1) * stddev) / Math.sqrt(n);
    stats.ci95 = [mean - half, mean + half];
  }
  return stats;
}

/** The median of the values; reorders them. */
function middle(values: Float64Array): number {
  const n = values.length;
  const upper = select(values, n >> 1);
  if (n % 2) return upper;
  // After selecting k, everything left of k is ≤ it: the lower middle is their maximum.
  let lower = -Infinity;
  for (let i = 0; i < n >> 1; i++) if (values[i]! > lower) lower = values[i]!;
  return (lower + upper) / 2;
}

/**
 * Hoare's selection (quickselect, median-of-three pivot): the k-th smallest value, in expected linear time
 * instead of a sort's n log n; afterwards values[0..k) ≤ values[k] ≤ values(k..n).
 */
export function select(values: Float64Array, k: number): number {
  let left = 0;
  let right = values.length - 1;
  while (right > left) {
    const middleIndex = (left + right) >> 1;
    const a = values[left]!;
    const b = values[middleIndex]!;
    const c = values[right]!;
    const pivot = a < b ? (b < c ? b : a < c ? c : a) : a < c ? a : b < c ? c : b;
    let i = left;
    let j = right;
    while (i <= j) {
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
      if (i <= j) {
        const t = values[i]!;
        values[i] = values[j]!;
        values[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) right = j;
    else if (k >= i) left = i;
    else return values[k]!;
  }
  return values[k]!;
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

/** Complementary error function (Numerical Recipes erfcc; relative error < 1.2e-7). */
export function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t *
                      (-0.18628806 +
                        t *
                          (0.27886807 +
                            t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}
