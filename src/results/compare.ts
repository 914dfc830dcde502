/**
 * Comparing two runs case by case, for gating storage changes in CI:
 *   - the change in median (new / base − 1),
 *   - its 95% confidence interval by a seeded percentile bootstrap of the ratio of medians,
 *   - a two-sided Mann–Whitney U test (exact distribution for small samples without ties, the normal
 *     approximation with tie and continuity corrections otherwise),
 *   - a verdict: "~" when the difference is not significant at alpha; a regression when it is, in the
 *     bad direction (throughput and IOPS down, latency and time up) and beyond the threshold.
 * With the exact test, 3 against 3 repetitions can never reach p < 0.05 (the smallest two-sided p is 0.1),
 * and the specs repeat 3 times. When the samples are too small for the rank test ever to reach alpha (but
 * have 2 or more values each), the bootstrap interval of the change decides instead: the change is
 * significant when the (1 − alpha) interval excludes 0. `test` says which one decided.
 */
import type { Metric } from "../spec/schema.js";
import { METRIC_INFO } from "./metrics.js";
import { median } from "./stats.js";

export interface CompareOptions {
  /** Relative change that counts as a regression or improvement (0.05 = 5%). */
  threshold: number;
  /** Significance level: of the Mann–Whitney test, or 1 − the level of the interval that decides instead. */
  alpha: number;
  metrics: readonly Metric[];
  resamples?: number;
  seed?: number;
}

export const DEFAULT_COMPARE: CompareOptions = { threshold: 0.05, alpha: 0.05, metrics: ["throughput"] };

/** What a comparison needs of a case: its measured samples per metric. */
export interface CaseSamples {
  id: string;
  workload: string;
  repetitions: number;
  failed: number;
  samples: Partial<Record<Metric, number[]>>;
}

/**
 * What decided significance: the Mann–Whitney U test, or (samples too small for it to reach alpha) whether
 * the bootstrap interval of the change excludes 0.
 */
export type CompareTest = "mann-whitney" | "ci";

export type Verdict =
  "regression" | "improvement" | "within threshold" | "~" | "failed" | "only in base" | "only in new";

export interface CaseComparison {
  case: string;
  workload: string;
  metric: Metric;
  higherIsBetter: boolean;
  base?: { n: number; median: number };
  new?: { n: number; median: number };
  /** new median / base median − 1. */
  change?: number;
  ci95?: [number, number];
  p?: number;
  /** Which test decided `significant` (absent when no test was possible). */
  test?: CompareTest;
  significant: boolean;
  verdict: Verdict;
  note?: string;
}

export interface Comparison {
  base: string;
  new: string;
  options: CompareOptions;
  cases: CaseComparison[];
  regressions: number;
  improvements: number;
}

export function compareRuns(
  base: { label: string; cases: readonly CaseSamples[] },
  next: { label: string; cases: readonly CaseSamples[] },
  options: CompareOptions = DEFAULT_COMPARE,
): Comparison {
  const cases: CaseComparison[] = [];
  const nextById = new Map(next.cases.map((c) => [c.id, c]));
  const baseIds = new Set(base.cases.map((c) => c.id));
  for (const metric of options.metrics) {
    const { higherIsBetter } = METRIC_INFO[metric];
    for (const b of base.cases) {
      const n = nextById.get(b.id);
      const common = { case: b.id, workload: b.workload, metric, higherIsBetter };
      if (!n) {
        cases.push({ ...common, significant: false, verdict: "only in base" });
        continue;
      }
      const a = b.samples[metric];
      const c = n.samples[metric];
      if (n.failed > 0 && b.failed === 0) {
        cases.push({
          ...common,
          significant: false,
          verdict: "failed",
          note: `${n.failed} of ${n.repetitions} repetitions failed in the new run`,
        });
        continue;
      }
      if (!a?.length || !c?.length) {
        // A metric neither run measured for this case (dd has no latency): nothing to compare.
        if (!a?.length && !c?.length) continue;
        cases.push({
          ...common,
          significant: false,
          verdict: "~",
          note: `${metric} measured in only one of the runs`,
        });
        continue;
      }
      cases.push({ ...common, ...compareSamples(a, c, higherIsBetter, options) });
    }
    for (const n of next.cases) {
      if (!baseIds.has(n.id) && n.samples[metric]?.length) {
        cases.push({
          case: n.id,
          workload: n.workload,
          metric,
          higherIsBetter,
          significant: false,
          verdict: "only in new",
        });
      }
    }
  }
  return {
    base: base.label,
    new: next.label,
    options,
    cases,
    regressions: cases.filter((c) => c.verdict === "regression" || c.verdict === "failed").length,
    improvements: cases.filter((c) => c.verdict === "improvement").length,
  };
}

/** The interval decides only with this many values on each side (one value has no spread to resample). */
const MIN_CI_SAMPLE = 2;

const formatLevel = (level: number) => `${Number((level * 100).toFixed(2))}%`;

export function compareSamples(
  base: readonly number[],
  next: readonly number[],
  higherIsBetter: boolean,
  options: Pick<CompareOptions, "threshold" | "alpha" | "resamples" | "seed">,
): Omit<CaseComparison, "case" | "workload" | "metric" | "higherIsBetter"> {
  const baseMedian = median(base);
  const nextMedian = median(next);
  const stats = { base: { n: base.length, median: baseMedian }, new: { n: next.length, median: nextMedian } };
  if (baseMedian === 0)
    return { ...stats, significant: false, verdict: "~", note: "the base median is 0: no relative change" };
  const change = nextMedian / baseMedian - 1;
  const resamples = options.resamples ?? 2000;
  const seed = options.seed ?? 1;
  const ci95 = bootstrapRatioCi(base, next, resamples, seed);
  const { p } = mannWhitney(base, next);
  const result = { ...stats, change, ...(ci95 && { ci95 }), p };
  const rankCanDecide = smallestP(base.length, next.length) < options.alpha;
  let test: CompareTest | undefined;
  let significant = false;
  let note: string | undefined;
  if (rankCanDecide) {
    test = "mann-whitney";
    significant = p < options.alpha;
  } else if (base.length >= MIN_CI_SAMPLE && next.length >= MIN_CI_SAMPLE) {
    // The rank test cannot reach alpha: the interval of the change at the matching level decides.
    const level = 1 - options.alpha;
    const ci = options.alpha === 0.05 ? ci95 : bootstrapRatioCi(base, next, resamples, seed, level);
    test = "ci";
    significant = ci !== undefined && (ci[0] > 0 || ci[1] < 0);
    note = `decided by the ${formatLevel(level)} CI: ${base.length} vs ${next.length} repetitions cannot reach p < ${options.alpha} in the Mann-Whitney test`;
  } else {
    note = `${base.length} vs ${next.length} repetitions: too few to test; use more repetitions`;
  }
  const worse = higherIsBetter ? change < 0 : change > 0;
  let verdict: Verdict = "~";
  if (significant) {
    if (Math.abs(change) <= options.threshold) verdict = "within threshold";
    else verdict = worse ? "regression" : "improvement";
  }
  return { ...result, ...(test && { test }), significant, verdict, ...(note && { note }) };
}

/** The smallest two-sided p the exact Mann–Whitney test can give for samples of n1 and n2: 2 / C(n1+n2, n1). */
export function smallestP(n1: number, n2: number): number {
  let arrangements = 1;
  for (let i = 1; i <= n1; i += 1) arrangements = (arrangements * (n2 + i)) / i;
  return Math.min(1, 2 / arrangements);
}

/** A small, seeded PRNG (mulberry32): the same inputs give the same interval on every run. */
function mulberry32(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
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
  const random = mulberry32(seed);
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
export function normalSf(z: number): number {
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

/** "5%", "5" (percent) or "0.05" (fraction below 1) as a fraction. */
export function parseThreshold(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(%?)\s*$/.exec(text);
  if (!match) throw new Error(`"${text}" is not a threshold; expected a percentage such as 5%`);
  const value = Number(match[1]);
  if (match[2] === "%" || value >= 1) return value / 100;
  return value;
}
