/** Where a run's keys live in a store (no SDK here: the compiler uses it too). */

/** Every key a run attempt writes to a store is under this prefix of its own. */
export const runKeyPrefix = (spec: string, runId: string) => `benchspec/${spec}/${runId}/`;

/** A prefix runKeyPrefix made, and so one that `clean` may empty. */
export const isRunKeyPrefix = (prefix: string) => /^benchspec\/[^/]+\/[^/]+\/$/.test(prefix);
