import type { Backend } from "../types.js";

// PLACEHOLDER — replaced by the shell emitter work.
export const s3ShellTools = ["s3"] as const;
export const s3ShellCase: Backend["shellCase"] = (c, w) => {
  w.line(`echo ${w.quote(c.id)}`);
};
