import type { Backend } from "../types.js";
import { fioArtifacts } from "./jobfile.js";
import { fioShellCase, fioShellLibrary } from "./shell.js";

export const fioBackend: Backend = {
  engine: "fio",
  targets: ["fio", "shell"],
  // The shell script runs fio cases through the same jobfiles.
  artifacts: (c, _target, ctx) => fioArtifacts(c, ctx),
  shellTools: ["fio"],
  shellLibrary: fioShellLibrary,
  shellCase: fioShellCase,
  executor: async () => (await import("./run.js")).fioExecutor,
};
