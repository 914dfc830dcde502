import { METRICS } from "../../rows/metric-names.js";
import type { EngineInfo } from "../../spec/engines.js";

/** The ipfs engine's part of the language: its target kind, operations, the parameters it takes and its defaults. */
export const ipfsLanguage = {
  formats: ["sdk", "shell"],
  summary: "the Kubo RPC API (put = add, get = cat)",
  targetKinds: ["ipfs"],
  defaultFor: ["ipfs"],
  ops: ["put", "get"],
  params: [
    "size",
    "objects",
    "concurrency",
    "chunker",
    "cidVersion",
    "rawLeaves",
    "pin",
    "autotune",
    "rate",
    "arrivals",
  ],
  defaults: {
    size: 2 ** 20,
    objects: 4,
    concurrency: 1,
    chunker: "size-262144",
    cidVersion: 1,
    rawLeaves: true,
    pin: true,
  },
  metrics: METRICS,
  drawnSize: "size",
  together: false,
} as const satisfies EngineInfo;
