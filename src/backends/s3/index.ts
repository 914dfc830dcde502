import type { Backend } from "../types.js";
import { s3SdkArtifacts } from "./sdk.js";
import { s3ShellCase, s3ShellLibrary, s3ShellTools } from "./shell.js";

export const s3Backend: Backend = {
  engine: "s3",
  targets: ["sdk", "shell"],
  artifacts: (c, target, ctx) => (target === "sdk" ? s3SdkArtifacts(c, ctx) : []),
  shellTools: s3ShellTools,
  shellLibrary: s3ShellLibrary,
  shellCase: s3ShellCase,
  executor: async () => (await import("./run.js")).s3Executor,
};
