/**
 * The one reader of a results file's rows as they stand. results.ndjson is append-only: a repetition that
 * failed and was run again (--resume) has two rows there, and the later one stands. The run reads its own
 * file so before resuming; `merge` reads each input so, strictly (every line a result row it can take). The
 * report and `compare` stream rows into the run model instead (report/rows.ts), which applies the same rule.
 */
import { existsSync } from "node:fs";
import { BenchspecError } from "../platform/errors.js";
import { ResultRowSchema, type ResultRow } from "../rows/row.js";
import { ndjsonError, PlacedLines, scanNdjson } from "./ndjson.js";
import { RowTextParser } from "./row-text.js";

/** One repetition of a case (a warm-up apart from the measured repetition of the same number). */
export const repetitionKey = (row: { case: string; repetition: number; warmup?: boolean }) =>
  `${row.case}#${row.repetition}#${row.warmup === true}`;

/** A repetition of a case by its parts, where a key string per row would be built and parsed back. */
export interface RepetitionRef {
  case: string;
  repetition: number;
  warmup: boolean;
}

/** The standing rows of an input by repetition, in the order they stand: its rows as a Map or an index. */
export interface StandingRows {
  readonly size: number;
  refs(): Iterable<RepetitionRef>;
  has(ref: RepetitionRef): boolean;
  get(ref: RepetitionRef): ResultRow | undefined;
  close?(): void;
}

/** Rows held in memory (a few: what a fio-client script printed), the last of a repetition standing. */
export class RowsInMemory implements StandingRows {
  private readonly rows = new Map<string, ResultRow>();

  constructor(rows: Iterable<ResultRow>) {
    for (const row of rows) this.rows.set(repetitionKey(row), row);
  }

  get size(): number {
    return this.rows.size;
  }

  *refs(): IterableIterator<RepetitionRef> {
    for (const row of this.rows.values())
      yield { case: row.case, repetition: row.repetition, warmup: row.warmup === true };
  }

  has(ref: RepetitionRef): boolean {
    return this.rows.has(repetitionKey(ref));
  }

  get(ref: RepetitionRef): ResultRow | undefined {
    return this.rows.get(repetitionKey(ref));
  }
}

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
  const rows = new Map<string, ResultRow>();
  await scanResultRows(file, options, (row) => {
    const key = repetitionKey(row);
    // Deleted first, so that the map's order is that of the rows that stand.
    rows.delete(key);
    rows.set(key, row);
  });
  return [...rows.values()];
}

/**
 * The rows that stand in a file too large to hold (merge's inputs, a million rows each): one pass checks
 * them all and keeps where each standing row's line is; a row is parsed again when it is asked for.
 * Map-like by repetitionKey, in the order the rows stand. Per row it keeps numbers only: a key string per
 * row took more than twice the heap (at 300,000 rows a side, 115 MB against 43 MB and 16 MB more of arrays).
 */
export class StandingRowIndex implements StandingRows {
  private readonly caseIds: string[] = [];
  private readonly caseIndex = new Map<string, number>();
  /** Per case (by index), per 2 × repetition + warm-up, its standing line's slot. */
  private readonly byCase: Map<number, number>[] = [];
  /** Per slot: the line's byte offset and length, its case's index and 2 × repetition + warm-up. */
  private places = new Float64Array(4 * 1024);
  private count = 0;
  private standing = 0;
  private lines?: PlacedLines;
  private lastRef: RepetitionRef | undefined;
  private lastSlot: number | undefined;
  /** Rows read back share their case's identity and params (parsed once per case). */
  private readonly rowText = new RowTextParser();

  private constructor(readonly file: string) {}

  static async build(file: string, options: StandingRowsOptions = {}): Promise<StandingRowIndex> {
    const index = new StandingRowIndex(file);
    await scanResultRows(file, options, (row, offset, bytes) => index.place(row, offset, bytes));
    return index;
  }

  private place(row: ResultRow, offset: number, bytes: number): void {
    let caseIndex = this.caseIndex.get(row.case);
    if (caseIndex === undefined) {
      caseIndex = this.caseIds.push(row.case) - 1;
      this.caseIndex.set(row.case, caseIndex);
      this.byCase.push(new Map());
    }
    if (4 * this.count + 4 > this.places.length) {
      const grown = new Float64Array(this.places.length * 2);
      grown.set(this.places);
      this.places = grown;
    }
    const repetition = 2 * row.repetition + (row.warmup ? 1 : 0);
    const at = 4 * this.count;
    this.places[at] = offset;
    this.places[at + 1] = bytes;
    this.places[at + 2] = caseIndex;
    this.places[at + 3] = repetition;
    const slots = this.byCase[caseIndex]!;
    if (!slots.has(repetition)) this.standing += 1;
    slots.set(repetition, this.count++);
  }

  get size(): number {
    return this.standing;
  }

  /** The standing rows' repetitions: a row stands where its repetition's last line is. */
  *refs(): IterableIterator<RepetitionRef> {
    for (let slot = 0; slot < this.count; slot += 1) {
      const [caseIndex, repetition] = [this.places[4 * slot + 2]!, this.places[4 * slot + 3]!];
      if (this.byCase[caseIndex]!.get(repetition) === slot)
        yield {
          case: this.caseIds[caseIndex]!,
          repetition: repetition >> 1,
          warmup: (repetition & 1) === 1,
        };
    }
  }

  has(ref: RepetitionRef): boolean {
    return this.slotOf(ref) !== undefined;
  }

  /**
   * The standing row of `ref` (checked when the index was built), read from the file again; the rows of a
   * case share their identity's values (its params object): read them, do not change them.
   */
  get(ref: RepetitionRef): ResultRow | undefined {
    const slot = this.slotOf(ref);
    if (slot === undefined) return undefined;
    this.lines ??= new PlacedLines(this.file);
    return this.rowText.parse(
      this.lines.text(this.places[4 * slot]!, this.places[4 * slot + 1]!),
    ) as ResultRow;
  }

  close(): void {
    this.lines?.close();
    this.lines = undefined;
  }

  private slotOf(ref: RepetitionRef): number | undefined {
    // A repetition is asked for twice in a row (has, then get): its slot is kept for the second.
    if (ref === this.lastRef) return this.lastSlot;
    this.lastRef = ref;
    const caseIndex = this.caseIndex.get(ref.case);
    this.lastSlot =
      caseIndex === undefined
        ? undefined
        : this.byCase[caseIndex]!.get(2 * ref.repetition + (ref.warmup ? 1 : 0));
    return this.lastSlot;
  }
}

/** Every row of a file and where its line is, checked as `options` say. */
async function scanResultRows(
  file: string,
  options: StandingRowsOptions,
  visit: (row: ResultRow, offset: number, bytes: number) => void,
): Promise<void> {
  const { strict } = options;
  if (!existsSync(file)) {
    if (strict) throw new BenchspecError("invalid-input", `${file}: no such results file`);
    return;
  }
  let problem: string | undefined;
  let rows = 0;
  const scan = await scanNdjson(file, (value, line, offset, bytes) => {
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
    rows += 1;
    visit(row, offset, bytes);
  });
  if (scan.error) throw ndjsonError(file, scan.error);
  if (strict) {
    if (scan.broken)
      throw new BenchspecError("invalid-input", `${file}:${scan.broken.line}: the last line is cut off`);
    if (scan.skipped > 0)
      throw new BenchspecError("invalid-input", `${file}:${scan.firstSkipped}: not a JSON row`);
    if (problem) throw new BenchspecError("invalid-input", problem);
    if (rows === 0) throw new BenchspecError("invalid-input", `${file}: no result rows`);
  }
}
