import type { Case } from "../plan/types.js";
import type { ResultRow } from "../rows/row.js";
import type { CaseSummary } from "../results/summary.js";

/** What the case loop reports as it goes; progress displays implement it. */
export interface RunObserver {
  caseStart(c: Case, position: number, total: number): void;
  /** A repetition (warm-up or measured) about to run: for live metrics; displays may ignore it. */
  repetitionStart?(c: Case, repetition: number, warmup: boolean): void;
  /** A round of a workload run in rounds to steady state about to run (its cases' repetition is the round). */
  roundStart?(workload: string, round: number, max: number): void;
  repetitionDone(c: Case, row: ResultRow): void;
  caseDone(c: Case, summary: CaseSummary, skipped: boolean): void;
  message(text: string): void;
}
