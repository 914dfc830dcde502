/**
 * The one reader of a results file's rows as they stand. results.ndjson is append-only: a repetition that
 * failed and was run again (--resume) has two rows there, and the later one stands. The run reads its own
 * file so before resuming; `merge` reads each input so, strictly (every line a result row it can take). The
 * report and `compare` stream rows into the run model instead (report/rows.ts), which applies the same rule.
 */
import { existsSync } from "node:fs";
import { BenchspecError } from "../platform/errors.js";
import { ResultRowSchema, type ResultRow } from "../rows/row.js";
import { ndjsonError, scanNdjson } from "./ndjson.js";

/** One repetition of a case (a warm-up apart from the measured repetition of the same number). */
export const repetitionKey = (row: { case: string; repetition: number; warmup?: boolean }) =>
  `${row.case}#${row.repetition}#${row.warmup === true}`;

export interface StandingRowsOptions {
  /**
   * Every line must be a result row (checked against the row schema), the last line whole, and each row
   * pass `accept` (which says what is wrong with one it refuses): an input the user gave. Otherwise the
   * file is the run's own, written by this program: its rows are taken as they are, a torn last line (a
   * kill mid-write) left out.
   */
  strict?: { accept?: (row: ResultRow) => string | undefined };
}

/** The rows that stand, in the order they stand in the file; none when there is no file (unless strict). */
export async function readStandingRows(
  file: string,
  options: StandingRowsOptions = {},
): Promise<ResultRow[]> {
  const { strict } = options;
  if (!existsSync(file)) {
    if (strict) throw new BenchspecError("invalid-input", `${file}: no such results file`);
    return [];
  }
  const rows = new Map<string, ResultRow>();
  let problem: string | undefined;
  const scan = await scanNdjson(file, (value, line) => {
    if (problem) return;
    let row = value as ResultRow;
    if (strict) {
      const parsed = ResultRowSchema.safeParse(value);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        problem = `${file}:${line}: not a result row (${issue.path.join(".") || "row"}: ${issue.message})`;
        return;
      }
      row = parsed.data;
      const refused = strict.accept?.(row);
      if (refused) {
        problem = `${file}:${line}: ${refused}`;
        return;
      }
    }
    const key = repetitionKey(row);
    // Deleted first, so that the map's order is that of the rows that stand.
    rows.delete(key);
    rows.set(key, row);
  });
  if (scan.error) throw ndjsonError(file, scan.error);
  if (strict) {
    if (scan.broken)
      throw new BenchspecError("invalid-input", `${file}:${scan.broken.line}: the last line is cut off`);
    if (scan.skipped > 0)
      throw new BenchspecError("invalid-input", `${file}:${scan.firstSkipped}: not a JSON row`);
    if (problem) throw new BenchspecError("invalid-input", problem);
    if (rows.size === 0) throw new BenchspecError("invalid-input", `${file}: no result rows`);
  }
  return [...rows.values()];
}
