import { METRICS } from "../../rows/metric-names.js";
import type { EngineInfo } from "../../spec/engines.js";
import type { EngineReport } from "../report-facts.js";

/** fio's part of the language: the targets it drives, its operations, the parameters it takes and its defaults. */
export const fioLanguage = {
  formats: ["fio", "shell"],
  summary: "fio jobs against a file system directory or a block device",
  targetKinds: ["fs", "block"],
  defaultFor: ["fs", "block"],
  ops: ["read", "write", "randread", "randwrite", "readwrite", "randrw"],
  params: [
    "size",
    "bs",
    "iodepth",
    "jobs",
    "read",
    "duration",
    "ramp",
    "direct",
    "precondition",
    "purge",
    "steady",
    "ioengine",
    "autotune",
    "rate",
    "arrivals",
  ],
  defaults: { size: 64 * 2 ** 20, bs: 4096, iodepth: 1, jobs: 1, direct: false, ioengine: "libaio" },
  metrics: METRICS,
  drawnSize: "bs",
  together: true,
} as const satisfies EngineInfo;

/** How the report shows fio's results. */
export const fioReport: EngineReport = {
  latency: { kind: "tool", text: "completion latency from fio's json+ histograms" },
  iops: true,
  seconds: false,
  steadyWindow: true,
};
