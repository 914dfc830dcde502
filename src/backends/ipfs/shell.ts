import type { Backend } from "../types.js";

// PLACEHOLDER — replaced by the shell emitter work.
export const ipfsShellTools = ["ipfs"] as const;
export const ipfsShellCase: Backend["shellCase"] = (c, w) => {
  w.line(`echo ${w.quote(c.id)}`);
};
