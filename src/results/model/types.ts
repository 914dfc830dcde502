/**
 * The case model's types: a case as plan.json lists it, and the figures the model decides for each case
 * and each time series.
 */
import type { LatencyBound } from "../../engines/autotune.js";
import type { Metric } from "../../rows/metric-names.js";
import type { TelemetrySummary } from "../../rows/telemetry.js";
import type { Stats } from "../../rows/stats.js";
import type { ResultRow } from "../../rows/row.js";

/** A case as plan.json lists it (or as derived from result rows when there is no plan). */
export interface PlanCase {
  id: string;
  workload: string;
  target: string;
  engine: string;
  op: string;
  params: Record<string, unknown>;
}

/**
 * Every figure of one case, decided once by the run model (accumulator.ts, figures.ts): the console,
 * summary.json, the report, compare and merge all read these and compute none of them again.
 */
export interface CaseFigures extends PlanCase {
  /** The case's parameters; an autotuned case's tuned parameter is the value the model chose. */
  params: Record<string, unknown>;
  /**
   * Measured repetitions that count: the last row of each case × repetition (a failure run again counts as
   * its new row), of a workload in rounds only those of its measurement window.
   */
  repetitions: number;
  /** Of those, the failed ones (never averaged in), and their errors. */
  failed: number;
  errors: string[];
  /** Statistics over the successful repetitions (a metric only when every one of them reported it). */
  metrics: Partial<Record<Metric, Stats>>;
  warnings: string[];
  /** What each client host did over the measured repetitions, and which of its resources were saturated. */
  telemetry?: HostTelemetry[];
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
  /**
   * Sizes drawn from a distribution: per size class (rows/sizes.ts), in size order, the operations, bytes
   * and errors of the counted repetitions, and the medians over them of each class's p50 and p99 (seconds).
   */
  bySize?: { size: number; ops: number; bytes: number; errors: number; p50?: number; p99?: number }[];
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
  /** Gain over the previous round, as a fraction (the gain rule). */
  gain?: number;
  /** The bound rule: the step's bound figure (seconds) and whether the step met the bound. */
  bound?: { median: number; mean: number; ci95?: [number, number] };
  met?: boolean;
}

export interface AutotuneResult {
  param: string;
  /** The gain rule's threshold, as a fraction. */
  stopWhenGainBelow?: number;
  /** The bound rule's bound. */
  bound?: LatencyBound;
  rounds: AutotuneRound[];
  /** The value chosen; absent when no step met the bound. */
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

export interface HostTelemetry {
  /** In a case run on several hosts; absent for the one host of a local run. */
  host?: string;
  summary: TelemetrySummary;
  /** One line per saturated resource (verdict.ts); empty when the host had room on every one measured. */
  saturated: string[];
}

/**
 * The fields of a result row the model reads (benchspec rows, shell rows and imported fio rows alike);
 * where it came from is optional: rows made in memory may not say.
 */
export type RowLike = Pick<
  ResultRow,
  | "case"
  | "workload"
  | "target"
  | "engine"
  | "op"
  | "params"
  | "repetition"
  | "warmup"
  | "ok"
  | "error"
  | "seconds"
  | "throughput"
  | "iops"
  | "latency"
  | "ttfb"
  | "client"
  | "steady"
  | "autotune"
  | "jobs"
  | "telemetry"
  | "bySize"
> &
  Partial<
    Pick<
      ResultRow,
      "source" | "spec" | "specHash" | "hosts" | "targets" | "startSpread" | "start" | "schedule"
    >
  >;
