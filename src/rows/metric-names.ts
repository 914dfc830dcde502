/** The metrics a result row carries, by name: in `expect`, `report.charts` and `--metric` (no zod here). */
export const METRICS = ["throughput", "iops", "latency", "p50", "p90", "p99", "p99.9", "seconds"] as const;
export type Metric = (typeof METRICS)[number];
