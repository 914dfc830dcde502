import type { Engine } from "../types.js";
import { fioArtifacts } from "./jobfile.js";
import { fioShellCase, fioShellLibrary, fioShellPrecondition } from "./shell.js";
import { locatedTool } from "../../platform/tool-version.js";

export const engine: Engine = {
  engine: "fio",
  // The shell script runs fio cases through the same jobfiles.
  artifacts: (cases, _format, ctx) => fioArtifacts(cases, ctx),
  shellTools: ["fio"],
  shellLibrary: fioShellLibrary,
  shellCase: fioShellCase,
  shellSeries: true,
  shellOpenLoop: true,
  shellTogether: true,
  shellPrecondition: fioShellPrecondition,
  tools: [locatedTool("fio")],
  libraries: [],
  executor: async () => (await import("./run.js")).fioExecutor,
};
