/**
 * Runs of one spec followed over time: per case and metric, its figure in every run (the run model's mean
 * with its 95% interval, and its median), the runs ordered by their start, each with the commit of the spec's
 * repository from provenance, and each run compared with the run before it that measured the case by
 * compare's rule (compareSamples: a significant change beyond the threshold in the bad direction is a
 * regression). Runs are compared pairwise, so a slow drift of small steps is never flagged: the chart shows
 * it.
 */
import { METRIC_INFO } from "../rows/metrics.js";
import type { Stats } from "../rows/stats.js";
import type { Metric } from "../spec/schema.js";
import { compareSamples, type CompareOptions, type CompareTest, type Verdict } from "./compare.js";
import type { CaseFigures } from "./model/types.js";

/** What a trend needs of a run: its label, when it started, the spec's commit, its cases' figures. */
export interface TrendRunInput {
  label: string;
  start?: string;
  git?: { commit: string; dirty: boolean };
  cases: readonly Pick<CaseFigures, "id" | "workload" | "repetitions" | "failed" | "metrics" | "samples">[];
}

/** One run's figure of a case, and how it compares with the case's previous run. */
export interface TrendPoint {
  run: string;
  start?: string;
  commit?: string;
  dirty?: boolean;
  /** Counted repetitions, and of those the failed ones. */
  repetitions: number;
  failed: number;
  stats?: Pick<Stats, "n" | "mean" | "median" | "ci95">;
  /** Against the previous run that measured the case (its label): absent for the first. */
  previous?: string;
  change?: number;
  changeCi95?: [number, number];
  p?: number;
  test?: CompareTest;
  verdict?: Verdict;
}

export interface CaseTrend {
  case: string;
  workload: string;
  metric: Metric;
  points: TrendPoint[];
}

export interface Trend {
  spec: string;
  /** Every run in the trend's order. */
  runs: { label: string; start?: string; commit?: string; dirty?: boolean }[];
  cases: CaseTrend[];
  options: Pick<CompareOptions, "threshold" | "alpha" | "metrics">;
  /** Points whose verdict is a regression or a failure, in run order. */
  regressions: { case: string; metric: Metric; point: TrendPoint }[];
}

/** Start order; runs without a start (a results file) keep their place after those with one. */
const byStart = (a: TrendRunInput, b: TrendRunInput) =>
  a.start === undefined || b.start === undefined
    ? Number(a.start === undefined) - Number(b.start === undefined)
    : a.start < b.start
      ? -1
      : a.start > b.start
        ? 1
        : 0;

export function trendOf(
  spec: string,
  inputs: readonly TrendRunInput[],
  options: Pick<CompareOptions, "threshold" | "alpha" | "metrics">,
): Trend {
  const runs = [...inputs].sort(byStart);
  const byId = runs.map((run) => new Map(run.cases.map((c) => [c.id, c])));
  const cases: CaseTrend[] = [];
  const workloads = new Map<string, string>();
  const ids: string[] = [];
  for (const run of runs)
    for (const c of run.cases)
      if (!workloads.has(c.id)) {
        workloads.set(c.id, c.workload);
        ids.push(c.id);
      }
  for (const metric of options.metrics) {
    const { higherIsBetter } = METRIC_INFO[metric];
    for (const id of ids) {
      const points: TrendPoint[] = [];
      let previous: { label: string; samples: number[]; failed: number } | undefined;
      for (const [index, run] of runs.entries()) {
        const c = byId[index]!.get(id);
        if (!c || c.repetitions === 0) continue;
        const samples = c.samples[metric] ?? [];
        const stats = c.metrics[metric];
        const point: TrendPoint = {
          run: run.label,
          ...(run.start && { start: run.start }),
          ...(run.git && { commit: run.git.commit, dirty: run.git.dirty }),
          repetitions: c.repetitions,
          failed: c.failed,
          ...(stats && {
            stats: {
              n: stats.n,
              mean: stats.mean,
              median: stats.median,
              ...(stats.ci95 && { ci95: stats.ci95 }),
            },
          }),
        };
        if (previous) {
          point.previous = previous.label;
          if (c.failed > 0 && previous.failed === 0) point.verdict = "failed";
          else if (samples.length > 0 && previous.samples.length > 0) {
            const compared = compareSamples(previous.samples, samples, higherIsBetter, options);
            point.verdict = compared.verdict;
            if (compared.change !== undefined) point.change = compared.change;
            if (compared.ci95) point.changeCi95 = compared.ci95;
            if (compared.p !== undefined) point.p = compared.p;
            if (compared.test) point.test = compared.test;
          }
        }
        points.push(point);
        if (samples.length > 0 || c.failed > 0) previous = { label: run.label, samples, failed: c.failed };
      }
      if (points.some((point) => point.stats))
        cases.push({ case: id, workload: workloads.get(id)!, metric, points });
    }
  }
  return {
    spec,
    runs: runs.map((run) => ({
      label: run.label,
      ...(run.start && { start: run.start }),
      ...(run.git && { commit: run.git.commit, dirty: run.git.dirty }),
    })),
    cases,
    options,
    regressions: cases.flatMap((c) =>
      c.points
        .filter((point) => point.verdict === "regression" || point.verdict === "failed")
        .map((point) => ({ case: c.case, metric: c.metric, point })),
    ),
  };
}
