import type { EngineReport } from "../report-facts.js";

/** How the report shows the results of the engines that drive a store with the load generator (s3, ipfs). */
export const loadReport: EngineReport = {
  latency: { kind: "per-operation" },
  iops: true,
  // An object operation's time is a result in itself: how long a transfer of this size takes.
  seconds: true,
  steadyWindow: false,
};
