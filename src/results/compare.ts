/**
 * Comparing two runs case by case, for gating storage changes in CI:
 *   - the change in median (new / base − 1),
 *   - its 95% confidence interval by a seeded percentile bootstrap of the ratio of medians, and a
 *     two-sided Mann–Whitney U test (both in significance.ts),
 *   - a verdict: "~" when the difference is not significant at alpha; a regression when it is, in the
 *     bad direction (throughput and IOPS down, latency and time up) and beyond the threshold.
 * With the exact test, 3 against 3 repetitions can never reach p < 0.05 (the smallest two-sided p is 0.1),
 * and the specs repeat 3 times. When the samples are too small for the rank test ever to reach alpha (but
 * have 2 or more values each), the bootstrap interval of the change decides instead: the change is
 * significant when the (1 − alpha) interval excludes 0. `test` says which one decided.
 */
import type { Metric } from "../spec/schema.js";
import { METRIC_INFO } from "./metrics.js";
import { bootstrapRatioCi, mannWhitney, smallestP } from "./significance.js";
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

/** "5%", "5" (percent) or "0.05" (fraction below 1) as a fraction. */
export function parseThreshold(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(%?)\s*$/.exec(text);
  if (!match) throw new Error(`"${text}" is not a threshold; expected a percentage such as 5%`);
  const value = Number(match[1]);
  if (match[2] === "%" || value >= 1) return value / 100;
  return value;
}
