/**
 * The one reader of a results file's rows as they stand. results.ndjson is append-only: a repetition that
 * failed and was run again (--resume) has two rows there, and the later one stands. The run reads its own
 * file so before resuming; `merge` indexes each input so, and checks every line as it reads it. The
 * report and `compare` stream rows into the run model instead (report/rows.ts), which applies the same rule.
 */
import { existsSync } from "node:fs";
import { open } from "node:fs/promises";
import { BenchspecError } from "../platform/errors.js";
import { firstIssue, ResultRowSchema, type ResultRow } from "../rows/row.js";
import { ndjsonError, scanNdjson } from "./ndjson.js";
import { RowTextParser, type RowIdentity } from "./row-text.js";

/** One repetition of a case (a warm-up apart from the measured repetition of the same number). */
export const repetitionKey = (row: { case: string; repetition: number; warmup?: boolean }) =>
  `${row.case}#${row.repetition}#${row.warmup === true}`;

/** A repetition of a case by its parts, where a key string per row would be built and parsed back. */
export interface RepetitionRef {
  case: string;
  repetition: number;
  warmup: boolean;
}

/** Where a standing row is: its line's byte offset and length and its line number (from 1). */
export interface RowPlace {
  offset: number;
  bytes: number;
  line: number;
}

/** The standing rows of an input by repetition, in the order they stand: its rows as a Map or an index. */
export interface StandingRows {
  readonly size: number;
  refs(): Iterable<RepetitionRef>;
  has(ref: RepetitionRef): boolean;
}

/** Rows held in memory (a few: what a fio-client script printed), the last of a repetition standing. */
export class RowsInMemory implements StandingRows {
  private readonly rows = new Map<string, ResultRow>();

  constructor(rows: Iterable<ResultRow>) {
    for (const row of rows) {
      const key = repetitionKey(row);
      this.rows.delete(key);
      this.rows.set(key, row);
    }
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

  /** The standing rows, in the order they stand. */
  standing(): ResultRow[] {
    return [...this.rows.values()];
  }
}

/** The rows that stand, in the order they stand in the file; none when there is no file (the run's own). */
export async function readStandingRows(file: string): Promise<ResultRow[]> {
  const rows = new Map<string, ResultRow>();
  if (!existsSync(file)) return [];
  const scan = await scanNdjson(file, (value) => {
    const row = value as ResultRow;
    const key = repetitionKey(row);
    // Deleted first, so that the map's order is that of the rows that stand.
    rows.delete(key);
    rows.set(key, row);
  });
  if (scan.error) throw ndjsonError(file, scan.error);
  return [...rows.values()];
}

/**
 * The rows that stand in a file too large to hold (merge's inputs, a million rows each): one pass finds
 * each line's repetition and keeps where the line is; whoever reads a row parses and checks it (each line
 * once: the standing ones where they are merged, the others by `checkSuperseded`). Lines of benchspec's
 * layout are not parsed here (RowTextParser.identity), the others are, and one that is not a result row's
 * JSON refuses the file, naming its line. Map-like by repetition, in the order the rows stand. Per row it
 * keeps numbers only: a key string per row took more than twice the heap (at 300,000 rows a side, 115 MB
 * against 43 MB and 16 MB more of arrays).
 */
export class StandingRowIndex implements StandingRows {
  private readonly caseIds: string[] = [];
  private readonly caseIndex = new Map<string, number>();
  /** Per case (by index), per 2 × repetition + warm-up, its standing line's slot. */
  private readonly byCase: Map<number, number>[] = [];
  /** Per slot: the line's byte offset, length and number, its case's index and 2 × repetition + warm-up. */
  private places = new Float64Array(5 * 1024);
  private count = 0;
  private standing = 0;
  private lastRef: RepetitionRef | undefined;
  private lastSlot: number | undefined;

  /** The file's lines. */
  lines = 0;
  /** Whether its last line has no "\n" (a write cut off, or a file cut short). */
  torn = false;

  private constructor(readonly file: string) {}

  static async build(file: string): Promise<StandingRowIndex> {
    if (!existsSync(file)) throw new BenchspecError("invalid-input", `${file}: no such results file`);
    const rowText = new RowTextParser();
    const index = new StandingRowIndex(file);
    let problem: string | undefined;
    const scan = await scanNdjson(
      file,
      (value, line, offset, bytes) => {
        if (problem) return;
        const identity = value as Partial<RowIdentity>;
        if (typeof identity.case !== "string" || typeof identity.repetition !== "number") {
          const checked = ResultRowSchema.safeParse(value);
          problem = `${file}:${line}: not a result row (${checked.success ? "no case or repetition" : firstIssue(checked.error)})`;
          return;
        }
        index.add(identity as RowIdentity, offset, bytes, line);
      },
      (text) => rowText.identity(text),
    );
    if (scan.error) throw ndjsonError(file, scan.error);
    if (scan.broken)
      throw new BenchspecError("invalid-input", `${file}:${scan.broken.line}: the last line is cut off`);
    if (scan.skipped > 0)
      throw new BenchspecError("invalid-input", `${file}:${scan.firstSkipped}: not a JSON row`);
    if (problem) throw new BenchspecError("invalid-input", problem);
    if (index.count === 0) throw new BenchspecError("invalid-input", `${file}: no result rows`);
    index.lines = scan.lines;
    index.torn = await endsTorn(file);
    return index;
  }

  private add(row: RowIdentity, offset: number, bytes: number, line: number): void {
    let caseIndex = this.caseIndex.get(row.case);
    if (caseIndex === undefined) {
      caseIndex = this.caseIds.push(row.case) - 1;
      this.caseIndex.set(row.case, caseIndex);
      this.byCase.push(new Map());
    }
    if (SLOT * this.count + SLOT > this.places.length) {
      const grown = new Float64Array(this.places.length * 2);
      grown.set(this.places);
      this.places = grown;
    }
    const repetition = 2 * row.repetition + (row.warmup === true ? 1 : 0);
    const at = SLOT * this.count;
    this.places[at] = offset;
    this.places[at + 1] = bytes;
    this.places[at + 2] = line;
    this.places[at + 3] = caseIndex;
    this.places[at + 4] = repetition;
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
      if (!this.stands(slot)) continue;
      const repetition = this.places[SLOT * slot + 4]!;
      yield {
        case: this.caseIds[this.places[SLOT * slot + 3]!]!,
        repetition: repetition >> 1,
        warmup: (repetition & 1) === 1,
      };
    }
  }

  has(ref: RepetitionRef): boolean {
    return this.slotOf(ref) !== undefined;
  }

  /** The repetition of the file's first row. */
  first(): RepetitionRef {
    const repetition = this.places[4]!;
    return {
      case: this.caseIds[this.places[3]!]!,
      repetition: repetition >> 1,
      warmup: (repetition & 1) === 1,
    };
  }

  /** Where the standing row of `ref` is. */
  place(ref: RepetitionRef): RowPlace | undefined {
    const slot = this.slotOf(ref);
    return slot === undefined ? undefined : this.placeOf(slot);
  }

  /** Frees the index once its places were copied out: it answers nothing any more. */
  release(): void {
    this.places = new Float64Array(0);
    this.count = 0;
    this.standing = 0;
    this.byCase.length = 0;
    this.caseIds.length = 0;
    this.caseIndex.clear();
    this.lastRef = undefined;
  }

  /** The lines of rows that a later row of their repetition replaced (a retried failure's), in file order. */
  *superseded(): IterableIterator<RowPlace> {
    for (let slot = 0; slot < this.count; slot += 1) if (!this.stands(slot)) yield this.placeOf(slot);
  }

  private stands(slot: number): boolean {
    const at = SLOT * slot;
    return this.byCase[this.places[at + 3]!]!.get(this.places[at + 4]!) === slot;
  }

  private placeOf(slot: number): RowPlace {
    const at = SLOT * slot;
    return { offset: this.places[at]!, bytes: this.places[at + 1]!, line: this.places[at + 2]! };
  }

  private slotOf(ref: RepetitionRef): number | undefined {
    // A repetition is asked for twice in a row (has, then place): its slot is kept for the second.
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

/** Numbers per slot of StandingRowIndex's places. */
const SLOT = 5;

/** Whether the file's last byte is not a "\n". */
async function endsTorn(file: string): Promise<boolean> {
  const handle = await open(file, "r");
  try {
    const { size } = await handle.stat();
    if (size === 0) return false;
    const last = Buffer.alloc(1);
    await handle.read(last, 0, 1, size - 1);
    return last[0] !== 10;
  } finally {
    await handle.close();
  }
}
