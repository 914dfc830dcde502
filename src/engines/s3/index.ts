import { NO_ARTIFACTS, type Backend } from "../types.js";
import { sdkArtifacts } from "../../compile/sdk-format.js";
import { s3SdkArtifact } from "./sdk.js";
import { s3ShellCase, s3ShellLibrary, s3ShellTools } from "./shell.js";

export const s3Backend: Backend = {
  engine: "s3",
  targets: ["sdk", "shell"],
  artifacts: (cases, target, ctx) =>
    target === "sdk" ? sdkArtifacts(cases, ctx, s3SdkArtifact) : NO_ARTIFACTS,
  shellTools: s3ShellTools,
  shellLibrary: s3ShellLibrary,
  shellCase: s3ShellCase,
  tools: [],
  libraries: ["@aws-sdk/client-s3"],
  executor: async () => (await import("./run.js")).s3Executor,
};
