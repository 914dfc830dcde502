/**
 * One pass over result rows (results.ndjson, or what a compiled script printed): each row is checked,
 * folded into the run model, and what the loaders need besides the aggregates is collected (the cases
 * in order of their first row, spec hashes, fio steady-state rows). A pass can cover a byte range of the
 * file: rows-threads.ts scans ranges on several threads and merges their partial passes in file order,
 * which gives the same result as one pass over the whole file.
 */
import { planCaseOf, type ModelPartial, type RowLike, type RunModel } from "../results/model/accumulator.js";
import type { PlanCase } from "../results/model/types.js";
import type { PlanLike } from "./model.js";
import { scanNdjson, type ByteRange, type NdjsonScan } from "../results/ndjson.js";
import { engineReport } from "../engines/index.js";
import { RowTextParser } from "../results/row-text.js";

/** A fio row with a steady-state result: its window is read from the raw output (load.ts). */
export interface SteadyRow {
  case: string;
  repetition: number;
  seconds: number;
  ramp: number;
}

/** Minimal shape check of a row: the fields aggregation reads, with their types. */
function asRow(value: unknown): RowLike | undefined {
  const row = value as Record<string, unknown>;
  if (
    typeof row.case !== "string" ||
    typeof row.workload !== "string" ||
    typeof row.ok !== "boolean" ||
    typeof row.throughput !== "number" ||
    typeof row.iops !== "number" ||
    typeof row.seconds !== "number" ||
    typeof row.params !== "object" ||
    row.params === null
  ) {
    return undefined;
  }
  return value as RowLike;
}

export const numberOr = (value: unknown, fallback: number) =>
  typeof value === "number" && Number.isFinite(value) ? value : fallback;

/** The plan when there is no plan.json: cases in order of their first row, targets by name. */
export class DerivedPlan {
  readonly cases = new Map<string, PlanCase>();
  name: string | undefined;
  specHash: string | undefined;

  add(row: RowLike): void {
    this.name ??= row.spec;
    this.specHash ??= row.specHash;
    if (!this.cases.has(row.case)) {
      this.cases.set(row.case, planCaseOf(row));
    }
  }

  /** Another pass's plan, from rows after this one's. */
  merge(other: DerivedPlanPartial): void {
    this.name ??= other.name;
    this.specHash ??= other.specHash;
    for (const c of other.cases) if (!this.cases.has(c.id)) this.cases.set(c.id, c);
  }

  partial(): DerivedPlanPartial {
    return {
      cases: [...this.cases.values()],
      ...(this.name !== undefined && { name: this.name }),
      ...(this.specHash !== undefined && { specHash: this.specHash }),
    };
  }

  plan(): PlanLike {
    const list = [...this.cases.values()];
    return {
      name: this.name ?? "results",
      ...(this.specHash && { specHash: this.specHash }),
      vars: {},
      targets: Object.fromEntries([...new Set(list.map((c) => c.target))].map((t) => [t, {}])),
      cases: list,
      expect: [],
      report: {},
    };
  }
}

export interface DerivedPlanPartial {
  cases: PlanCase[];
  name?: string;
  specHash?: string;
}

/** A pass over a range, as a thread posts it (plain data: structured clone, typed arrays transferred). */
export interface RowsPartial {
  acc: ModelPartial;
  derived: DerivedPlanPartial;
  hashes: string[];
  steadyRows: SteadyRow[];
  invalid: number;
  /** Its line number within the range; 0 when there is none. */
  firstInvalid: number;
}

export class RowsPass {
  readonly derived = new DerivedPlan();
  readonly hashes = new Set<string>();
  readonly steadyRows: SteadyRow[] = [];
  /** Rows that are JSON but not result rows. */
  invalid = 0;
  firstInvalid = 0;
  private readonly rowText = new RowTextParser();

  constructor(readonly acc: RunModel) {}

  readonly parse = (text: string): unknown => this.rowText.parse(text);

  readonly add = (value: unknown, line: number): void => {
    const row = asRow(value);
    if (!row) {
      this.invalid += 1;
      this.firstInvalid ||= line;
      return;
    }
    row.warmup = row.warmup === true;
    row.repetition = typeof row.repetition === "number" ? row.repetition : 1;
    this.derived.add(row);
    if (row.specHash) this.hashes.add(row.specHash);
    if (row.steady && engineReport(row.engine)?.steadyWindow && row.ok && !row.warmup) {
      this.steadyRows.push({
        case: row.case,
        repetition: row.repetition,
        seconds: row.seconds,
        ramp: numberOr(row.params.ramp, 0),
      });
    }
    this.acc.addRow(row);
  };

  /** This pass as plain data, and the buffers to transfer with it. */
  partial(): { partial: RowsPartial; transfer: ArrayBuffer[] } {
    const { partial: acc, transfer } = this.acc.partial();
    return {
      partial: {
        acc,
        derived: this.derived.partial(),
        hashes: [...this.hashes],
        steadyRows: this.steadyRows,
        invalid: this.invalid,
        firstInvalid: this.firstInvalid,
      },
      transfer,
    };
  }

  /** Adds a pass over the rows that follow this one's; its line numbers start after `lineOffset`. */
  merge(partial: RowsPartial, lineOffset: number): void {
    this.acc.merge(partial.acc);
    this.derived.merge(partial.derived);
    for (const hash of partial.hashes) this.hashes.add(hash);
    for (const row of partial.steadyRows) this.steadyRows.push(row);
    this.invalid += partial.invalid;
    if (partial.firstInvalid > 0) this.firstInvalid ||= partial.firstInvalid + lineOffset;
  }
}

/** One pass over `file` (or a byte range of it) into `acc`. */
export async function scanRows(
  file: string,
  acc: RunModel,
  range: ByteRange = {},
): Promise<{ pass: RowsPass; scan: NdjsonScan }> {
  const pass = new RowsPass(acc);
  const scan = await scanNdjson(file, pass.add, pass.parse, range);
  return { pass, scan };
}
