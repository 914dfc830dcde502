import type { EngineReport } from "./types.js";

/** How the report shows fio's results. */
export const fioReport: EngineReport = {
  latency: { kind: "tool", text: "completion latency from fio's json+ histograms" },
  iops: true,
  seconds: false,
  steadyWindow: true,
};
