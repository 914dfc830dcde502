import type { Backend } from "../types.js";
import { ipfsSdkArtifacts } from "./sdk.js";
import { ipfsShellCase, ipfsShellLibrary, ipfsShellTools } from "./shell.js";

export const ipfsBackend: Backend = {
  engine: "ipfs",
  targets: ["sdk", "shell"],
  artifacts: (c, target, ctx) => (target === "sdk" ? ipfsSdkArtifacts(c, ctx) : []),
  shellTools: ipfsShellTools,
  shellLibrary: ipfsShellLibrary,
  shellCase: ipfsShellCase,
  executor: async () => (await import("./run.js")).ipfsExecutor,
};
