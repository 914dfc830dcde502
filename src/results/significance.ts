/**
 * Whether two samples differ: the two-sided Mann–Whitney U test (exact distribution for small samples
 * without ties, the normal approximation with tie and continuity corrections otherwise) and a seeded
 * percentile-bootstrap interval of the ratio of their medians (large samples: each resampled median drawn
 * from its large-sample law, so that a million rows compare in seconds).
 */
import { Mulberry32 } from "../rows/random.js";
import { erfc, select } from "../rows/stats.js";

/** The smallest two-sided p the exact Mann–Whitney test can give for samples of n1 and n2: 2 / C(n1+n2, n1). */
export function smallestP(n1: number, n2: number): number {
  let arrangements = 1;
  for (let i = 1; i <= n1; i += 1) arrangements = (arrangements * (n2 + i)) / i;
  return Math.min(1, 2 / arrangements);
}

/**
 * Up to this many values a side is resampled value by value. Beyond it, resampling costs resamples × n per
 * case (minutes over a million rows), and the resampled median is drawn from its large-sample law instead:
 * the median of n values drawn with replacement from the sorted sample is its quantile at
 * 1/2 + Z / (2√n), Z standard normal (the resample's count below a value is binomial, near normal for n
 * this large).
 */
const RESAMPLE_MAX_SAMPLE = 30;

/** Box–Muller: a standard normal from two uniforms (1 − u keeps the logarithm finite). */
const normal = (random: Mulberry32) =>
  Math.sqrt(-2 * Math.log(1 - random.next())) * Math.cos(2 * Math.PI * random.next());

/**
 * The normals a seed's stream gives, in order: when both sides are large, each resample draws one for each
 * side and nothing else, so every case compared with the same seed draws the same ones (10,000 cases drew
 * them again each: most of a large comparison's time). The last seed's are kept.
 */
let lastNormals: { seed: number; values: Float64Array } | undefined;
function normalsOf(seed: number, count: number): Float64Array {
  if (lastNormals?.seed !== seed || lastNormals.values.length < count) {
    const random = new Mulberry32(seed);
    lastNormals = { seed, values: Float64Array.from({ length: count }, () => normal(random)) };
  }
  return lastNormals.values;
}

/** Draws bootstrap medians of one side. */
class MedianSampler {
  private readonly sorted: Float64Array;
  private readonly n: number;
  /** Small samples: how often each sorted value is drawn (the resample's median without sorting it). */
  private readonly counts: Uint32Array;
  private readonly spread: number;

  constructor(values: readonly number[]) {
    this.sorted = Float64Array.from(values).sort();
    this.n = this.sorted.length;
    this.counts = new Uint32Array(this.n <= RESAMPLE_MAX_SAMPLE ? this.n : 0);
    this.spread = 1 / (2 * Math.sqrt(this.n));
  }

  /** One bootstrap median, drawn with `random`. */
  draw(random: Mulberry32): number {
    const { sorted, n, counts } = this;
    if (n <= RESAMPLE_MAX_SAMPLE) {
      counts.fill(0);
      for (let i = 0; i < n; i += 1) counts[Math.floor(random.next() * n)]! += 1;
      // The values at sorted positions n/2 (and n/2 − 1 for an even n) of the resample.
      const k = n >> 1;
      let seen = 0;
      let j = 0;
      if (n % 2 === 0) {
        while ((seen += counts[j]!) <= k - 1) j += 1;
        const lower = sorted[j]!;
        // The same value may hold both positions.
        if (seen > k) return lower;
        j += 1;
        while ((seen += counts[j]!) <= k) j += 1;
        return (lower + sorted[j]!) / 2;
      }
      while ((seen += counts[j]!) <= k) j += 1;
      return sorted[j]!;
    }
    return this.atNormal(normal(random));
  }

  /** A large sample's bootstrap median for the standard normal `z` (its large-sample law). */
  atNormal(z: number): number {
    const { sorted, n } = this;
    const at = Math.min(n - 1, Math.max(0, (0.5 + z * this.spread) * n - 0.5));
    const low = Math.floor(at);
    const high = Math.min(n - 1, low + 1);
    return sorted[low]! + (at - low) * (sorted[high]! - sorted[low]!);
  }
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
  // Seeded: the same inputs give the same interval on every run.
  const random = new Mulberry32(seed);
  const baseMedian = new MedianSampler(base);
  const nextMedian = new MedianSampler(next);
  if (ratioBuffer.length < resamples) ratioBuffer = new Float64Array(resamples);
  const ratios = ratioBuffer;
  let count = 0;
  const large = base.length > RESAMPLE_MAX_SAMPLE && next.length > RESAMPLE_MAX_SAMPLE;
  const normals = large ? normalsOf(seed, 2 * resamples) : undefined;
  for (let r = 0; r < resamples; r += 1) {
    const mb = normals ? baseMedian.atNormal(normals[2 * r]!) : baseMedian.draw(random);
    const mn = normals ? nextMedian.atNormal(normals[2 * r + 1]!) : nextMedian.draw(random);
    if (mb === 0) continue;
    ratios[count++] = mn / mb - 1;
  }
  if (count === 0) return undefined;
  // Two order statistics of the ratios: selected in place, not sorted.
  const index = (q: number) => Math.min(count - 1, Math.max(0, Math.round(q * (count - 1))));
  const tail = (1 - level) / 2;
  const [low, high] = [index(tail), index(1 - tail)];
  // (After selecting the high one, those before it are the smaller ones: the low one is among them.)
  const upper = select(ratios.subarray(0, count), high);
  return [select(ratios.subarray(0, high + 1), low), upper];
}

/**
 * The resampled ratios, in one buffer reused from case to case: a comparison of 10,000 cases asks for an
 * interval per case and metric, and 16 KB of fresh memory outside the heap each time was about 30 % of it.
 */
let ratioBuffer = new Float64Array(0);

/** Two-sided Mann–Whitney U test of a against b. */
export function mannWhitney(a: readonly number[], b: readonly number[]): { u: number; p: number } {
  const n1 = a.length;
  const n2 = b.length;
  if (n1 === 0 || n2 === 0) return { u: 0, p: 1 };
  // Ranks by merging the two sorted samples: typed-array sorts, no object per value.
  const sa = Float64Array.from(a).sort();
  const sb = Float64Array.from(b).sort();
  let rankSumA = 0;
  let tieTerm = 0;
  let ties = false;
  for (let i = 0, j = 0; i < n1 || j < n2;) {
    const v = j >= n2 || (i < n1 && sa[i]! <= sb[j]!) ? sa[i]! : sb[j]!;
    const [fromA, fromB] = [i, j];
    while (i < n1 && sa[i] === v) i += 1;
    while (j < n2 && sb[j] === v) j += 1;
    const inA = i - fromA;
    const t = inA + j - fromB;
    // The tied values share the mean of the ranks they span; i + j values are now ranked.
    rankSumA += inA * (i + j - (t - 1) / 2);
    if (t > 1) {
      ties = true;
      tieTerm += t ** 3 - t;
    }
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
