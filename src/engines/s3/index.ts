import { NO_ARTIFACTS } from "../../emit/types.js";
import { CURL_SHELL } from "../load/curl-shell.js";
import type { Engine } from "../types.js";
import { sdkArtifacts } from "../../emit/sdk-format.js";
import { s3SdkArtifact } from "./sdk.js";
import { s3ShellCase, s3ShellGaps, s3ShellLibrary, s3ShellTools } from "./shell.js";

export const engine: Engine = {
  engine: "s3",
  artifacts: (cases, format, ctx) =>
    format === "sdk" ? sdkArtifacts(cases, ctx, s3SdkArtifact) : NO_ARTIFACTS,
  shellTools: s3ShellTools,
  shellShared: [CURL_SHELL],
  shellLibrary: s3ShellLibrary,
  shellCase: s3ShellCase,
  shellAutotune: true,
  shellSeries: true,
  shellGaps: s3ShellGaps,
  tools: [],
  libraries: ["@aws-sdk/client-s3"],
  executor: async () => (await import("./run.js")).s3Executor,
};
