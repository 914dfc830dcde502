import { NO_ARTIFACTS } from "../../compile/types.js";
import type { Backend } from "../types.js";
import { sdkArtifacts } from "../../compile/sdk-format.js";
import { s3SdkArtifact } from "./sdk.js";
import { s3ShellCase, s3ShellLibrary, s3ShellTools } from "./shell.js";

export const s3Backend: Backend = {
  engine: "s3",
  formats: ["sdk", "shell"],
  artifacts: (cases, format, ctx) =>
    format === "sdk" ? sdkArtifacts(cases, ctx, s3SdkArtifact) : NO_ARTIFACTS,
  shellTools: s3ShellTools,
  shellLibrary: s3ShellLibrary,
  shellCase: s3ShellCase,
  tools: [],
  libraries: ["@aws-sdk/client-s3"],
  executor: async () => (await import("./run.js")).s3Executor,
};
