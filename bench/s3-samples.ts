/** What the S3 bench sections (s5cmd, the compiled script, warp) measure per round, and how they read it. */
import { MB } from "./stats.js";

export type Size = "large" | "small";
export type Op = "put" | "get";

export interface Sample {
  /** bytes per second over the wall time */
  throughput: number;
  opsPerSecond: number;
  cpuPerGiB: number;
  /** engine only */
  busyThroughput?: number;
  elu?: number;
}

export type Samples = Record<Size, Record<Op, Sample[]>>;
export const emptySamples = (): Samples => ({ large: { put: [], get: [] }, small: { put: [], get: [] } });

/** The figure compared for a size: MB/s of large objects, operations per second of small ones. */
export const figureOf = (size: Size) =>
  size === "large"
    ? (["MB/s", (s: Sample) => s.throughput / MB] as const)
    : (["ops/s", (s: Sample) => s.opsPerSecond] as const);
