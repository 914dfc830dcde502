import type { Backend } from "../types.js";
import { fioArtifacts } from "./jobfile.js";
import { fioExecutor } from "./run.js";
import { fioShellCase } from "./shell.js";

export const fioBackend: Backend = {
  engine: "fio",
  targets: ["fio", "shell"],
  artifacts: (c, target, ctx) => (target === "fio" ? fioArtifacts(c, ctx) : []),
  shellTools: ["fio"],
  shellCase: fioShellCase,
  executor: fioExecutor,
};
