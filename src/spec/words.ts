/**
 * The closed word lists of the language that the schema validates against and the engine table describes;
 * here, on their own, so neither of those two modules has to import the other.
 */
export const ENGINE_NAMES = ["fio", "dd", "s3", "ipfs"] as const;
export type EngineName = (typeof ENGINE_NAMES)[number];

export const OPS = [
  "read",
  "write",
  "randread",
  "randwrite",
  "readwrite",
  "randrw",
  "put",
  "get",
  "delete",
  "stat",
  "list",
  "mixed",
] as const;
export type Op = (typeof OPS)[number];
