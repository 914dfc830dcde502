/**
 * The closed word lists of the language that the schema validates against and the engine table describes;
 * here, on their own, so neither of those two modules has to import the other.
 */

/** What `compile` writes: fio jobfiles, the bash script, sdk call sequences (`--target` on the command line). */
export const ARTIFACT_FORMATS = ["fio", "shell", "sdk"] as const;
export type ArtifactFormat = (typeof ARTIFACT_FORMATS)[number];

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

/**
 * A time series' x axes in `report.charts`: time from each repetition's start, or over the workload as a
 * whole — seconds since its first repetition (`elapsed`, HIR) or GiB written since (`written`, WSAT).
 */
export const SERIES_AXES = ["time", "elapsed", "written"] as const;
export type SeriesAxis = (typeof SERIES_AXES)[number];
