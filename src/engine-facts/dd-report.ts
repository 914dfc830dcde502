import type { EngineReport } from "./types.js";

/** How the report shows dd's results. */
export const ddReport: EngineReport = {
  // dd's summary line gives bytes and seconds per process: no operations to time or count.
  latency: { kind: "none" },
  iops: false,
  seconds: false,
  steadyWindow: false,
};
