import { METRICS } from "../../rows/metric-names.js";
import type { EngineInfo } from "../../spec/engines.js";

/** The s3 engine's part of the language: its target kind, operations, the parameters it takes and its defaults. */
export const s3Language = {
  formats: ["sdk", "shell"],
  summary:
    "an S3-compatible object store (SigV4 over benchspec's own HTTP/1.1 client; the AWS SDK for the control plane)",
  targetKinds: ["s3"],
  defaultFor: ["s3"],
  ops: ["put", "get", "delete", "stat", "list", "mixed"],
  params: [
    "size",
    "objects",
    "concurrency",
    "threads",
    "multipart",
    "duration",
    "autotune",
    "mix",
    "rate",
    "arrivals",
  ],
  defaults: { size: 2 ** 20, objects: 16, concurrency: 4, threads: "auto", multipart: false },
  metrics: METRICS,
  drawnSize: "size",
  together: false,
} as const satisfies EngineInfo;
