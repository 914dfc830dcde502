/**
 * The report's data model: what the loaders produce and the chart and table builders read. Everything
 * here is already aggregated (per case statistics, downsampled series), so its size does not grow with
 * the number of result rows.
 */
import type { PlannedExpect, PlannedLimit, PlannedReport } from "../plan/types.js";
import type { SteadyWindow } from "../results/import-fio.js";
import type { CaseSummary, ExpectResult } from "../results/summary.js";
import type { RoundsByWorkload } from "../results/rounds-summary.js";
import type { Provenance, RunState } from "../results/run-dir.js";
import type { Stats } from "../results/stats.js";
import type { Metric } from "../spec/schema.js";
import type { TelemetryRow } from "../telemetry/types.js";

export type ReportSection = PlannedReport;
export type ChartRequest = NonNullable<ReportSection["charts"]>[number];
export type Limit = PlannedLimit;

/** A case as plan.json lists it (or as derived from result rows when there is no plan). */
export interface PlanCase {
  id: string;
  workload: string;
  target: string;
  engine: string;
  op: string;
  params: Record<string, unknown>;
}

/** What the report needs of a plan: plan.json's fields (description and workloads where present). */
export interface PlanLike {
  name: string;
  description?: string;
  specHash?: string;
  vars: Record<string, number>;
  targets: Record<string, { kind?: string; description?: string } & Record<string, unknown>>;
  cases: PlanCase[];
  expect: PlannedExpect[];
  report: ReportSection;
  workloads?: Record<string, { description?: string }>;
}

export type InputKind = "run" | "results" | "fio";

/** Per case: CaseSummary plus the samples a comparison needs. */
export interface CaseAgg extends Omit<CaseSummary, "params"> {
  params: Record<string, unknown>;
  /** The measured values of the successful repetitions, per metric (for compare). */
  samples: Partial<Record<Metric, number[]>>;
  /**
   * What the client cost (object engines), medians over the repetitions that reported it: CPU-seconds per
   * GiB moved, and the event-loop utilization (0…1) of its busiest thread.
   */
  client?: { cpuPerGiB?: number; eventLoopUtilization?: number };
  /** Time to first byte of reads (GET, cat), seconds: the medians over the repetitions of p50 and p99. */
  ttfb?: { p50?: number; p99?: number };
  steady?: { attained: number; total: number };
  /**
   * Cases whose repetitions ran several processes (dd's `parallel`): the throughput of each process of
   * every successful repetition, pooled (bytes/s), with its quartiles.
   */
  processes?: Stats & { q1: number; q3: number };
  /** Autotune cases: one entry per tried value of the tuned parameter, and the chosen knee. */
  autotune?: AutotuneResult;
  /** Cases run on several hosts at once: each host's own figures (absent for a case of one host). */
  hosts?: CaseHosts;
}

/** One host (or target) of a case run on several at once, over the repetitions it took part in. */
export interface HostAgg {
  /** The host's name, or the target's for a case over several targets at once. */
  host: string;
  repetitions: number;
  /** Repetitions this host failed, and their errors. */
  failed: number;
  errors: string[];
  /** Medians over this host's successful repetitions: its bytes and operations over its own time. */
  throughput?: number;
  iops?: number;
  p50?: number;
  p99?: number;
  seconds?: number;
  /** Median seconds from the earliest host's start to this host's. */
  offset?: number;
}

export interface CaseHosts {
  /** What the parts are: the client hosts of the case, or its targets (`target: { together }`). */
  by: "host" | "target";
  /** In the order the rows list them. */
  hosts: HostAgg[];
  /** Seconds from the earliest host's start to the latest one's: the median and the largest. */
  startSpread?: { median: number; max: number };
}

export interface AutotuneRound {
  value: number;
  n: number;
  throughput?: { median: number; mean: number; ci95?: [number, number] };
  iops?: { median: number; mean: number; ci95?: [number, number] };
  /** Gain over the previous round, as a fraction. */
  gain?: number;
}

export interface AutotuneResult {
  param: string;
  stopWhenGainBelow: number;
  rounds: AutotuneRound[];
  knee?: number;
}

/** A downsampled series: one line per case (repetitions pooled), with the min/max band of each bin. */
export interface SeriesAgg {
  case: string;
  /** One host's (or target's) own series, of a case run on several at once (absent: the case's, all summed). */
  host?: string;
  repetitions: number;
  rawPoints: number;
  points: SeriesPoint[];
  /** The case's measured repetitions one by one, on the clock (for `x: elapsed` and `x: written`). */
  timeline?: RepetitionSeries[];
}

/** One measured repetition's points as sampled (a rate is NaN where it is no sample), and its start. */
export interface RepetitionSeries {
  repetition: number;
  /** Its row's start (epoch ms). */
  start: number;
  points: { t: number; throughput: number; iops: number }[];
}

export interface SeriesPoint {
  t: number;
  throughput?: number;
  throughputMin?: number;
  throughputMax?: number;
  iops?: number;
  iopsMin?: number;
  iopsMax?: number;
}

export interface RunData {
  /** Unique within a report: shown in legends and tables. */
  label: string;
  path: string;
  kind: InputKind;
  plan: PlanLike;
  /** True when there was no plan.json and the cases were derived from the rows. */
  planDerived: boolean;
  provenance?: Provenance;
  state?: RunState;
  rows: { total: number; measured: number; warmup: number; failed: number; sources: string[] };
  cases: CaseAgg[];
  expect: ExpectResult[];
  series: SeriesAgg[];
  steady: SteadyWindow[];
  /** Workloads run in rounds to steady state, by name, then target (summary.json's; absent for other inputs). */
  rounds?: RoundsByWorkload;
  /**
   * Where the host telemetry samples are (a run directory's telemetry.ndjson, or rows in memory): read
   * only for the cases a time-series chart draws (charts/telemetry.ts). Absent: no samples.
   */
  telemetry?: { file: string } | { rows: readonly TelemetryRow[] };
  /** Problems met while loading (skipped lines, rows without a plan case, …). */
  notes: string[];
}
