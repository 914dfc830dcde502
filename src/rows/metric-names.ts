/** The metrics a result row carries, by name: in `expect`, `report.charts` and `--metric` (no zod here). */
export const METRICS = ["throughput", "iops", "latency", "p50", "p90", "p99", "p99.9", "seconds"] as const;
export type Metric = (typeof METRICS)[number];
/** The metrics in seconds per operation: what a latency bound (autotune's `bound`) can be on. */
export const LATENCY_METRICS = ["latency", "p50", "p90", "p99", "p99.9"] as const satisfies readonly Metric[];
export type LatencyMetric = (typeof LATENCY_METRICS)[number];
