/**
 * Comparing two runs case by case, for gating storage changes in CI:
 *   - the change in median (new / base − 1),
 *   - its 95% confidence interval by a seeded percentile bootstrap of the ratio of medians, and a
 *     two-sided Mann–Whitney U test (both in significance.ts),
 *   - a verdict: "~" when the difference is not significant at alpha; a regression when it is, in the
 *     bad direction (throughput and IOPS down, latency and time up) and beyond the threshold.
 * With the exact test, 3 against 3 repetitions can never reach p < 0.05 (the smallest two-sided p is 0.1),
 * and the specs repeat 3 times. When the samples are too small for the rank test ever to reach alpha (but
 * have 3 or more values each), the bootstrap interval of the change decides instead: the change is
 * significant when the (1 − alpha) interval excludes 0. `test` says which one decided. Fewer than 3 values
 * on a side decide nothing (the number `run` warns about): "too few repetitions", never a regression.
 *
 * The gate fails on a regression, a case that failed in the new run, or a case of the base the new run
 * lacks (unless allowed). Inputs that cannot be compared honestly are refused before any case is
 * (checkComparable): no rows, rows of another spec, of another harness or of another engine per case.
 */
import { BenchspecError } from "../platform/errors.js";
import type { Metric } from "../spec/schema.js";
import { METRIC_INFO } from "../rows/metrics.js";
import { bootstrapRatioCi, mannWhitney, smallestP } from "./significance.js";
import { median, MIN_SAMPLES_FOR_CI } from "../rows/stats.js";

export interface CompareOptions {
  /** Relative change that counts as a regression or improvement (0.05 = 5%). */
  threshold: number;
  /** Significance level: of the Mann–Whitney test, or 1 − the level of the interval that decides instead. */
  alpha: number;
  metrics: readonly Metric[];
  resamples?: number;
  seed?: number;
  /** Cases of the base that the new run lacks do not fail the gate. */
  allowMissing?: boolean;
  /** Runs of different specs (name or hash) are compared instead of refused. */
  allowSpecChange?: boolean;
}

export const DEFAULT_COMPARE: CompareOptions = { threshold: 0.05, alpha: 0.05, metrics: ["throughput"] };

/** What a comparison needs of a case: its measured samples per metric. */
export interface CaseSamples {
  id: string;
  workload: string;
  /** Checked to be the same in both runs when known. */
  engine?: string;
  repetitions: number;
  failed: number;
  samples: Partial<Record<Metric, number[]>>;
}

/** What the checks of the inputs need of a run (report/load.ts's RunData has it). */
export interface ComparedRun {
  label: string;
  path: string;
  plan: { name: string; specHash?: string };
  /** `sources`: the rows' `source` fields (run, shell, fio-import). */
  rows: { total: number; measured: number; sources: readonly string[] };
  provenance?: { host: { hostname: string } };
  /** What loading met (a partial run, …): shown with the comparison. */
  notes: readonly string[];
  cases: readonly CaseSamples[];
}

/**
 * What decided significance: the Mann–Whitney U test, or (samples too small for it to reach alpha) whether
 * the bootstrap interval of the change excludes 0.
 */
export type CompareTest = "mann-whitney" | "ci";

export type Verdict =
  | "regression"
  | "improvement"
  | "within threshold"
  | "~"
  | "too few repetitions"
  | "failed"
  | "only in base"
  | "only in new";

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
  /** Regressed or failed in the new run. */
  regressions: number;
  improvements: number;
  /** Comparisons with fewer than 3 repetitions on a side: not decided. */
  tooFew: number;
  /** Cases of the base that the new run lacks. */
  missing: string[];
  /** What a reader must know about the inputs (another host, a partial run). */
  warnings: string[];
  /** The gate: no regression and no failed case, nor a missing one unless allowed. */
  pass: boolean;
}

/** The cases that have rows: a plan lists every case, also those a partial run never reached. */
const ranCases = (run: { cases: readonly CaseSamples[] }) => run.cases.filter((c) => c.repetitions > 0);

const invalid = (message: string) => new BenchspecError("invalid-input", message);

const SOURCE_WORDS: Record<string, string> = {
  run: "`benchspec run`",
  shell: "the compiled script",
  "fio-import": "fio's JSON output",
};

/**
 * Refuses inputs whose comparison would mislead: no measured rows, rows of more than one source, of
 * another source (`run` and the compiled script measure with different harnesses) or of another spec
 * (unless allowed), no case in common, a case run by another engine. Runs from different hosts are
 * compared, with a warning (CI runners differ from run to run); the returned warnings say so.
 */
export function checkComparable(
  base: ComparedRun,
  next: ComparedRun,
  options: Pick<CompareOptions, "allowSpecChange"> = {},
): string[] {
  for (const run of [base, next]) {
    if (run.rows.total === 0) throw invalid(`${run.path}: no result rows (the results are empty)`);
    if (run.rows.measured === 0) throw invalid(`${run.path}: only warmup rows, nothing measured`);
    if (run.rows.sources.length > 1)
      throw invalid(
        `${run.path}: rows from ${run.rows.sources.map((s) => SOURCE_WORDS[s] ?? s).join(" and ")} mixed`,
      );
  }
  const [source, nextSource] = [base.rows.sources[0]!, next.rows.sources[0]!];
  if (source !== nextSource)
    throw invalid(
      `${base.path} was measured by ${SOURCE_WORDS[source] ?? source}, ${next.path} by ${SOURCE_WORDS[nextSource] ?? nextSource}: their numbers are not comparable`,
    );
  // fio's JSON names no spec: its plan is named after the file.
  const specOf = (run: ComparedRun) =>
    `spec ${run.plan.name}${run.plan.specHash ? ` (${run.plan.specHash})` : ""}`;
  if (!options.allowSpecChange && source !== "fio-import" && specOf(base) !== specOf(next))
    throw invalid(
      `${next.path} holds rows of ${specOf(next)}, ${base.path} of ${specOf(base)}; --allow-spec-change compares them anyway`,
    );
  const nextById = new Map(ranCases(next).map((c) => [c.id, c]));
  const common = ranCases(base).filter((c) => nextById.has(c.id));
  if (common.length === 0) throw invalid(`${base.path} and ${next.path} have no case in common`);
  for (const c of common) {
    const engine = nextById.get(c.id)!.engine;
    if (c.engine !== undefined && engine !== undefined && c.engine !== engine)
      throw invalid(`case ${c.id} was run by ${c.engine} in ${base.path} but by ${engine} in ${next.path}`);
  }
  const warnings = [base, next].flatMap((run) => run.notes.map((note) => `${run.label}: ${note}`));
  const [host, nextHost] = [base, next].map((run) => run.provenance?.host.hostname);
  if (host && nextHost && host !== nextHost)
    warnings.push(
      `${base.label} ran on ${host}, ${next.label} on ${nextHost}: a change may be the machine's, not the storage's`,
    );
  return warnings;
}

/** checkComparable, then compareRuns: what `benchspec compare` gates on. */
export function compareInputs(
  base: ComparedRun,
  next: ComparedRun,
  options: CompareOptions = DEFAULT_COMPARE,
): Comparison {
  const warnings = checkComparable(base, next, options);
  return { ...compareRuns(base, next, options), warnings };
}

export function compareRuns(
  base: { label: string; cases: readonly CaseSamples[] },
  next: { label: string; cases: readonly CaseSamples[] },
  options: CompareOptions = DEFAULT_COMPARE,
): Comparison {
  const cases: CaseComparison[] = [];
  const [baseCases, nextCases] = [ranCases(base), ranCases(next)];
  const nextById = new Map(nextCases.map((c) => [c.id, c]));
  const baseIds = new Set(baseCases.map((c) => c.id));
  for (const metric of options.metrics) {
    const { higherIsBetter } = METRIC_INFO[metric];
    for (const b of baseCases) {
      const n = nextById.get(b.id);
      const common = { case: b.id, workload: b.workload, metric, higherIsBetter };
      if (!n) {
        cases.push({
          ...common,
          significant: false,
          verdict: "only in base",
          ...(!options.allowMissing && { note: "missing from the new run: fails the gate" }),
        });
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
    for (const n of nextCases) {
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
  const regressions = cases.filter((c) => c.verdict === "regression" || c.verdict === "failed").length;
  const missing = baseCases.filter((c) => !nextById.has(c.id)).map((c) => c.id);
  return {
    base: base.label,
    new: next.label,
    options,
    cases,
    regressions,
    improvements: cases.filter((c) => c.verdict === "improvement").length,
    tooFew: cases.filter((c) => c.verdict === "too few repetitions").length,
    missing,
    warnings: [],
    pass: regressions === 0 && (options.allowMissing === true || missing.length === 0),
  };
}

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
  if (base.length < MIN_SAMPLES_FOR_CI || next.length < MIN_SAMPLES_FOR_CI)
    return {
      ...stats,
      ...(baseMedian !== 0 && { change: nextMedian / baseMedian - 1 }),
      significant: false,
      verdict: "too few repetitions",
      note: `${base.length} vs ${next.length} repetitions: too few repetitions to decide (at least ${MIN_SAMPLES_FOR_CI} on each side)`,
    };
  if (baseMedian === 0)
    return { ...stats, significant: false, verdict: "~", note: "the base median is 0: no relative change" };
  const change = nextMedian / baseMedian - 1;
  const resamples = options.resamples ?? 2000;
  const seed = options.seed ?? 1;
  const ci95 = bootstrapRatioCi(base, next, resamples, seed);
  const { p } = mannWhitney(base, next);
  const result = { ...stats, change, ...(ci95 && { ci95 }), p };
  const test: CompareTest = smallestP(base.length, next.length) < options.alpha ? "mann-whitney" : "ci";
  let significant = p < options.alpha;
  let note: string | undefined;
  if (test === "ci") {
    // The rank test cannot reach alpha: the interval of the change at the matching level decides.
    const level = 1 - options.alpha;
    const ci = options.alpha === 0.05 ? ci95 : bootstrapRatioCi(base, next, resamples, seed, level);
    significant = ci !== undefined && (ci[0] > 0 || ci[1] < 0);
    note = `decided by the ${formatLevel(level)} CI: ${base.length} vs ${next.length} repetitions cannot reach p < ${options.alpha} in the Mann-Whitney test`;
  }
  const worse = higherIsBetter ? change < 0 : change > 0;
  let verdict: Verdict = "~";
  if (significant) {
    if (Math.abs(change) <= options.threshold) verdict = "within threshold";
    else verdict = worse ? "regression" : "improvement";
  }
  return { ...result, test, significant, verdict, ...(note && { note }) };
}

/** "5%", "5" (percent) or "0.05" (fraction below 1) as a fraction. */
export function parseThreshold(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(%?)\s*$/.exec(text);
  if (!match) throw new Error(`"${text}" is not a threshold; expected a percentage such as 5%`);
  const value = Number(match[1]);
  if (match[2] === "%" || value >= 1) return value / 100;
  return value;
}
