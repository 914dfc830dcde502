import type { Backend } from "../types.js";
import { ddExecutor } from "./run.js";

// PLACEHOLDER — replaced by the shell emitter work.
export const ddBackend: Backend = {
  engine: "dd",
  targets: ["shell"],
  shellTools: ["dd"],
  shellCase: (c, w) => w.line(`echo ${w.quote(c.id)}`),
  executor: ddExecutor,
};
