import type { Case } from "./types.js";

/** What names a case and its resolved parameters, in the order every output that lists cases writes them. */
export const caseIdentity = (c: Case) => ({
  id: c.id,
  workload: c.workload,
  target: c.target,
  engine: c.engine,
  op: c.op,
  params: c.params,
});
