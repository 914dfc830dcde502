/**
 * Whether two samples differ: the two-sided Mann–Whitney U test (exact distribution for small samples
 * without ties, the normal approximation with tie and continuity corrections otherwise) and a seeded
 * percentile-bootstrap interval of the ratio of their medians.
 */
import { seededRandom } from "./random.js";
import { median } from "./stats.js";

/** The smallest two-sided p the exact Mann–Whitney test can give for samples of n1 and n2: 2 / C(n1+n2, n1). */
export function smallestP(n1: number, n2: number): number {
  let arrangements = 1;
  for (let i = 1; i <= n1; i += 1) arrangements = (arrangements * (n2 + i)) / i;
  return Math.min(1, 2 / arrangements);
}

/** Bootstrap samples are capped: a large sample is represented by this many of its quantiles. */
const BOOTSTRAP_MAX_SAMPLE = 1000;

function quantileSketch(values: readonly number[]): Float64Array {
  const sorted = Float64Array.from(values).sort();
  if (sorted.length <= BOOTSTRAP_MAX_SAMPLE) return sorted;
  return Float64Array.from(
    { length: BOOTSTRAP_MAX_SAMPLE },
    (_, i) => sorted[Math.floor(((i + 0.5) * sorted.length) / BOOTSTRAP_MAX_SAMPLE)]!,
  );
}

/**
 * Percentile-bootstrap interval (95% unless `level` says otherwise) of median(next) / median(base) − 1;
 * undefined with one sample each.
 */
export function bootstrapRatioCi(
  base: readonly number[],
  next: readonly number[],
  resamples: number,
  seed: number,
  level = 0.95,
): [number, number] | undefined {
  if (base.length < 2 && next.length < 2) return undefined;
  const a = quantileSketch(base);
  const b = quantileSketch(next);
  // Seeded: the same inputs give the same interval on every run.
  const random = seededRandom(seed);
  const bufA = new Float64Array(a.length);
  const bufB = new Float64Array(b.length);
  const ratios = new Float64Array(resamples);
  let count = 0;
  for (let r = 0; r < resamples; r += 1) {
    for (let i = 0; i < a.length; i += 1) bufA[i] = a[Math.floor(random() * a.length)]!;
    for (let i = 0; i < b.length; i += 1) bufB[i] = b[Math.floor(random() * b.length)]!;
    const mb = median(bufA);
    if (mb === 0) continue;
    ratios[count++] = median(bufB) / mb - 1;
  }
  if (count === 0) return undefined;
  const sorted = ratios.subarray(0, count).sort();
  const at = (q: number) => sorted[Math.min(count - 1, Math.max(0, Math.round(q * (count - 1))))]!;
  const tail = (1 - level) / 2;
  return [at(tail), at(1 - tail)];
}

/** Two-sided Mann–Whitney U test of a against b. */
export function mannWhitney(a: readonly number[], b: readonly number[]): { u: number; p: number } {
  const n1 = a.length;
  const n2 = b.length;
  if (n1 === 0 || n2 === 0) return { u: 0, p: 1 };
  const all = [...a.map((v) => ({ v, g: 0 })), ...b.map((v) => ({ v, g: 1 }))].sort((x, y) => x.v - y.v);
  let rankSumA = 0;
  let tieTerm = 0;
  let ties = false;
  for (let i = 0; i < all.length;) {
    let j = i;
    while (j + 1 < all.length && all[j + 1]!.v === all[i]!.v) j += 1;
    const rank = (i + j) / 2 + 1;
    const t = j - i + 1;
    if (t > 1) {
      ties = true;
      tieTerm += t ** 3 - t;
    }
    for (let k = i; k <= j; k += 1) if (all[k]!.g === 0) rankSumA += rank;
    i = j + 1;
  }
  const u = rankSumA - (n1 * (n1 + 1)) / 2;
  if (!ties && n1 + n2 <= 50) {
    const dist = exactUDistribution(n1, n2);
    const total = dist.reduce((s, x) => s + x, 0);
    let below = 0;
    let above = 0;
    for (let k = 0; k < dist.length; k += 1) {
      if (k <= u) below += dist[k]!;
      if (k >= u) above += dist[k]!;
    }
    return { u, p: Math.min(1, (2 * Math.min(below, above)) / total) };
  }
  const N = n1 + n2;
  const mean = (n1 * n2) / 2;
  const variance = ((n1 * n2) / 12) * (N + 1 - tieTerm / (N * (N - 1)));
  if (variance <= 0) return { u, p: 1 };
  const z = Math.max(0, Math.abs(u - mean) - 0.5) / Math.sqrt(variance);
  return { u, p: Math.min(1, 2 * normalSf(z)) };
}

/** Frequencies of U = 0…n1·n2 over all arrangements of n1 and n2 distinct values. */
function exactUDistribution(n1: number, n2: number): number[] {
  // f[i][j] = frequencies for samples of size i and j; f(i, j)[u] = f(i−1, j)[u − j] + f(i, j−1)[u].
  let prev: number[][] = Array.from({ length: n2 + 1 }, () => [1]);
  for (let i = 1; i <= n1; i += 1) {
    const row: number[][] = [[1]];
    for (let j = 1; j <= n2; j += 1) {
      const size = i * j + 1;
      const out = new Array<number>(size).fill(0);
      const left = prev[j]!;
      const down = row[j - 1]!;
      for (let k = 0; k < left.length; k += 1) if (k + j < size) out[k + j]! += left[k]!;
      for (let k = 0; k < down.length; k += 1) out[k]! += down[k]!;
      row.push(out);
    }
    prev = row;
  }
  return prev[n2]!;
}

/** Upper tail of the standard normal distribution. */
function normalSf(z: number): number {
  return 0.5 * erfc(z / Math.SQRT2);
}

/** Complementary error function (Numerical Recipes erfcc; relative error < 1.2e-7). */
function erfc(x: number): number {
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
