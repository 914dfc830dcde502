import type { Backend } from "../types.js";

// PLACEHOLDER — replaced by the shell emitter work.
export const ddBackend: Backend = {
  engine: "dd",
  targets: ["shell"],
  shellTools: ["dd"],
  shellCase: (c, w) => w.line(`echo ${w.quote(c.id)}`),
};
