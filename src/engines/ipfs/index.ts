import { NO_ARTIFACTS } from "../../emit/types.js";
import { CURL_SHELL, drawnSizeGaps } from "../load/curl-shell.js";
import type { Engine } from "../types.js";
import { sdkArtifacts } from "../../emit/sdk-format.js";
import { ipfsSdkArtifact } from "./sdk.js";
import { ipfsShellCase, ipfsShellLibrary, ipfsShellTools } from "./shell.js";

export const engine: Engine = {
  engine: "ipfs",
  artifacts: (cases, format, ctx) =>
    format === "sdk" ? sdkArtifacts(cases, ctx, ipfsSdkArtifact) : NO_ARTIFACTS,
  shellTools: ipfsShellTools,
  shellShared: [CURL_SHELL],
  shellLibrary: ipfsShellLibrary,
  shellCase: ipfsShellCase,
  shellGaps: drawnSizeGaps,
  shellAutotune: true,
  shellSeries: true,
  tools: [],
  libraries: ["kubo-rpc-client"],
  removeLeftover: async (target, record, env) =>
    (await import("./unfinished.js")).removePlannedAdds(target, record, env),
  executor: async () => (await import("./run.js")).ipfsExecutor,
};
