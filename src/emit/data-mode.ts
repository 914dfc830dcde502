import type { Case } from "../plan/types.js";

/** The payload mode the script's bs_data helper takes: random, zero, or compressible:<percent>. */
export function shellDataMode(c: Case): string {
  const data = c.params.data ?? "random";
  return typeof data === "object" ? `compressible:${Math.round(data.compressible)}` : data;
}
