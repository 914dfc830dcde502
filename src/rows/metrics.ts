/**
 * Every metric's facts in one table: how it is titled, its unit family, which way is better, and where a
 * result row holds it. A typed record, so a metric added to the language without an entry here does not
 * compile.
 */
import type { Metric } from "./metric-names.js";
import type { ResultRow } from "./row.js";

/** The unit a metric is measured in: bytes per second, operations per second, or seconds. */
export type MetricFamily = "throughput" | "iops" | "time";

/** The measured fields of a row (benchspec rows, shell rows and imported fio rows alike). */
export type MeasuredFields = Pick<ResultRow, "throughput" | "iops" | "seconds" | "latency">;

export interface MetricInfo {
  title: string;
  family: MetricFamily;
  /** Throughput and IOPS: more is better; latencies and durations: less is better. */
  higherIsBetter: boolean;
  /** Its value in a row (case statistics are keyed by the metric's name). */
  of: (row: MeasuredFields) => number | undefined;
  /** How one repetition's value is computed, for the report's tooltips (docs/language.md says the same). */
  definition: string;
}

const SECONDS =
  "the repetition's seconds (object engines: first operation's start to last operation's end; dd: release of the processes to the last exit; fio: its runtime; a case run on several hosts: the earliest host's start to the latest host's end)";
/** How a row of several hosts gets its latencies. */
const POOLED = "several hosts: all their operations pooled, from their merged histograms (within 0.1%)";
const percentile = (p: string) =>
  `${p} percentile of the repetition's operation latencies (object engines: request sent to last byte, or with rate from the instant it was due; fio: completion latency; ${POOLED})`;

export const METRIC_INFO: Record<Metric, MetricInfo> = {
  throughput: {
    title: "throughput",
    family: "throughput",
    higherIsBetter: true,
    of: (row) => row.throughput,
    definition: `bytes moved ÷ ${SECONDS}; several hosts: all their bytes`,
  },
  iops: {
    title: "IOPS",
    family: "iops",
    higherIsBetter: true,
    of: (row) => row.iops,
    definition: `operations completed (dd: bytes ÷ block size) ÷ ${SECONDS}; several hosts: all their operations`,
  },
  latency: {
    title: "mean latency",
    family: "time",
    higherIsBetter: false,
    of: (row) => row.latency?.mean,
    definition: `mean of the repetition's operation latencies (${POOLED})`,
  },
  p50: {
    title: "p50 latency",
    family: "time",
    higherIsBetter: false,
    of: (row) => row.latency?.p50,
    definition: percentile("50th"),
  },
  p90: {
    title: "p90 latency",
    family: "time",
    higherIsBetter: false,
    of: (row) => row.latency?.p90,
    definition: percentile("90th"),
  },
  p99: {
    title: "p99 latency",
    family: "time",
    higherIsBetter: false,
    of: (row) => row.latency?.p99,
    definition: percentile("99th"),
  },
  "p99.9": {
    title: "p99.9 latency",
    family: "time",
    higherIsBetter: false,
    of: (row) => row.latency?.["p99.9"],
    definition: percentile("99.9th"),
  },
  seconds: {
    title: "time per repetition",
    family: "time",
    higherIsBetter: false,
    of: (row) => row.seconds,
    definition: SECONDS,
  },
};

/** The latency percentiles, in increasing order. */
export const PERCENTILES = ["p50", "p90", "p99", "p99.9"] as const satisfies readonly Metric[];
