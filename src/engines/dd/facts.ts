import type { EngineInfo } from "../../spec/engines.js";
import type { EngineReport } from "../report-facts.js";

/** dd's part of the language: the targets it drives, its operations, the parameters it takes and its defaults. */
export const ddLanguage = {
  formats: ["shell"],
  summary: "parallel dd processes behind a start barrier",
  targetKinds: ["fs", "block"],
  defaultFor: [],
  ops: ["read", "write"],
  params: ["bs", "count", "parallel", "direct", "autotune", "purge"],
  defaults: { bs: 2 ** 20, count: 64, parallel: 1, direct: false },
  // dd's summary line gives bytes and seconds per process: no per-operation latency.
  metrics: ["throughput", "iops", "seconds"],
  together: true,
} as const satisfies EngineInfo;

/** How the report shows dd's results. */
export const ddReport: EngineReport = {
  // dd's summary line gives bytes and seconds per process: no operations to time or count.
  latency: { kind: "none" },
  iops: false,
  seconds: false,
  steadyWindow: false,
};
