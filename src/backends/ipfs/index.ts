import type { Backend } from "../types.js";
import { ipfsExecutor } from "./run.js";
import { ipfsSdkArtifacts } from "./sdk.js";
import { ipfsShellCase, ipfsShellTools } from "./shell.js";

export const ipfsBackend: Backend = {
  engine: "ipfs",
  targets: ["sdk", "shell"],
  artifacts: (c, target, ctx) => (target === "sdk" ? ipfsSdkArtifacts(c, ctx) : []),
  shellTools: ipfsShellTools,
  shellCase: ipfsShellCase,
  executor: ipfsExecutor,
};
