import type { Case } from "../plan/types.js";
import type { ResultRow } from "../rows/row.js";
import type { CaseSummary } from "../results/summary.js";

/** What the case loop reports as it goes; progress displays implement it. */
export interface RunObserver {
  caseStart(c: Case, position: number, total: number): void;
  repetitionDone(c: Case, row: ResultRow): void;
  caseDone(c: Case, summary: CaseSummary, skipped: boolean): void;
  message(text: string): void;
}
