import { NO_ARTIFACTS } from "../../compile/types.js";
import type { Backend } from "../types.js";
import { sdkArtifacts } from "../../compile/sdk-format.js";
import { ipfsSdkArtifact } from "./sdk.js";
import { ipfsShellCase, ipfsShellLibrary, ipfsShellTools } from "./shell.js";

export const ipfsBackend: Backend = {
  engine: "ipfs",
  formats: ["sdk", "shell"],
  artifacts: (cases, format, ctx) =>
    format === "sdk" ? sdkArtifacts(cases, ctx, ipfsSdkArtifact) : NO_ARTIFACTS,
  shellTools: ipfsShellTools,
  shellLibrary: ipfsShellLibrary,
  shellCase: ipfsShellCase,
  tools: [],
  libraries: ["kubo-rpc-client"],
  executor: async () => (await import("./run.js")).ipfsExecutor,
};
