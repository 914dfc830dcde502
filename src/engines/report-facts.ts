/**
 * What the report says of an engine's rows: the type of each engine's report facts (in its folder's
 * facts.ts; its language facts are typed where the language is, spec/engines.ts). Data only.
 */

/** Where the latency percentiles of an engine's rows come from, as the latency chart's caption says. */
export type LatencySource =
  /** Its own measurement, described by `text` (e.g. fio's histograms). */
  | { kind: "tool"; text: string }
  /** Timed by benchspec per operation, from sending a request to the end of its response. */
  | { kind: "per-operation" }
  /** None: its cases are not drawn. */
  | { kind: "none" };

/** What the report needs to know to show an engine's results (engineReport, engines/index.ts). */
export interface EngineReport {
  latency: LatencySource;
  /** Its IOPS mean something to a reader (the case table's IOPS column). */
  iops: boolean;
  /** A repetition's time is a result in itself (the case table's time column). */
  seconds: boolean;
  /** A `steady` repetition's raw output (raw/<case>.r<n>.json) holds the steady-state window the report draws. */
  steadyWindow: boolean;
}
