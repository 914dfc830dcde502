/**
 * merge's rows (merge-runs.ts reads and checks the inputs and writes the rest of the run): per repetition,
 * each input's row is read from its file by its place, parsed and checked — each line once — the rows are
 * merged as a run on several hosts merges them (merge-hosts.ts), and the merged row is written and folded
 * into the run's model; notes name the repetitions some host lacks and those whose hosts did not run
 * together.
 */
import type { Measurement } from "../engines/types.js";
import type { RunModel } from "./model/accumulator.js";
import { BenchspecError } from "../platform/errors.js";
import { mergeHostMeasurements, type HostMeasurement } from "./merge-hosts.js";
import { NdjsonWriter, PlacedLines, readRows } from "./ndjson.js";
import { RowTextParser } from "./row-text.js";
import { repetitionKey } from "./standing-rows.js";
import type { z } from "zod";
import {
  firstIssue,
  ResultRowSchema,
  type CaseIdentityField,
  type ResultRow,
  type TimeseriesRow,
} from "../rows/row.js";
import type { TelemetryRow } from "../rows/telemetry.js";
import { minOf } from "../rows/stats.js";
import { encodeBins } from "../rows/histogram.js";

/** What every row of an input must be besides a result row of one host: the rule of its kind. */
export type RowRule =
  | { kind: "run"; specHash: string }
  /** A copy of the compiled script's output: its rows all of one spec and one host (the first row's). */
  | { kind: "script"; specHash: string; host: string | undefined };

/** A results file as its rows are read: its lines, and whether its last has no "\n" (cut off). */
export interface RowFile {
  file: string;
  lines: number;
  torn: boolean;
}

/** An input as its rows are read. */
export interface RowInput {
  host: string;
  /** Its results file, read by the places, or its standing rows (a few: what a fio-client script printed). */
  source: RowFile | { rows: ResultRow[] };
  rule: RowRule;
  /** Its time series and telemetry files, if it kept any. */
  timeseries?: string;
  telemetry?: string;
}

/** Numbers per input and merged row in the places mergeRows is given. */
export const PLACE = 3;

/** The earliest start and the latest end of rows (ISO instants: their text orders them); "" when none. */
export interface Span {
  start: string;
  end: string;
}

export interface MergedRows {
  count: number;
  cases: number;
  /** Repetitions some host lacks, and those whose hosts did not run together. */
  notes: string[];
  /** Whether some host lacks a measured repetition. */
  incomplete: boolean;
  /** Per input, the span of its rows. */
  spans: Span[];
}

/** The fields that name a row's case and repetition; the rest is what was measured. */
type IdentityField = "v" | CaseIdentityField | "repetition" | "warmup";

/** A row's identity fields (IdentityField: the type ties them), one literal: Object.fromEntries spread again cost 50 µs a row. */
const identityOf = (row: ResultRow): Pick<ResultRow, IdentityField> => ({
  v: row.v,
  source: row.source,
  spec: row.spec,
  specHash: row.specHash,
  case: row.case,
  workload: row.workload,
  target: row.target,
  engine: row.engine,
  op: row.op,
  params: row.params,
  repetition: row.repetition,
  warmup: row.warmup,
});

/** A merged measurement's fields that are not the row's. */
const APART_FROM_ROW = new Set<string>([
  "timeseries",
  "samples",
  "errorCode",
] satisfies (keyof Measurement)[]);

/** An input's rows as they are read. */
class InputRows {
  private readonly lines?: PlacedLines;
  private readonly parser = new RowTextParser();
  readonly series: Map<string, TimeseriesRow[]>;
  readonly telemetry: Map<string, TelemetryRow[]>;
  readonly span: Span = { start: "", end: "" };

  constructor(readonly input: RowInput) {
    if ("file" in input.source) this.lines = new PlacedLines(input.source.file);
    this.series = byRepetition(input.timeseries ? readRows<TimeseriesRow>(input.timeseries) : []);
    this.telemetry = byRepetition(input.telemetry ? readRows<TelemetryRow>(input.telemetry) : []);
  }

  /** The row at a place, checked; a string says why it is refused. */
  row(offset: number, bytes: number, line: number): ResultRow | string {
    const { source, rule } = this.input;
    const row =
      "rows" in source
        ? source.rows[offset]!
        : checkedRow(source, rule, this.lines!.text(offset, bytes), line, this.parser);
    if (typeof row === "string") return row;
    if (this.span.start === "" || row.start < this.span.start) this.span.start = row.start;
    if (row.end > this.span.end) this.span.end = row.end;
    return row;
  }

  close(): void {
    this.lines?.close();
  }
}

/**
 * A line of an input's results file as a row, checked: JSON, a result row, of one host, and the input's
 * rule; else why not, naming the file and line.
 */
export function checkedRow(
  { file, lines, torn }: RowFile,
  rule: RowRule,
  text: string,
  line: number,
  parser: RowTextParser,
): ResultRow | string {
  let parts: ReturnType<RowTextParser["parseParts"]>;
  try {
    parts = parser.parseParts(text);
  } catch (error) {
    return line === lines && torn
      ? `${file}:${line}: the last line is cut off`
      : `${file}:${line}: not a JSON row (${(error as Error).message})`;
  }
  const issue = parts.head ? splitIssue(parts.head, parts.rest) : wholeIssue(parts.rest);
  if (issue) return `${file}:${line}: not a result row (${issue})`;
  const value = parts.head ? Object.assign(parts.rest, parts.head) : parts.rest;
  // The row as parsed (its case's rows share their identity's values), not the schema's copy of it.
  const row = value as ResultRow;
  const refused = refusal(rule, row);
  return refused ? `${file}:${line}: ${refused}` : row;
}

function wholeIssue(value: unknown): string | undefined {
  const checked = ResultRowSchema.safeParse(value);
  return checked.success ? undefined : firstIssue(checked.error);
}

/**
 * Per head of a case (RowTextParser): what is wrong with it, if anything, and the schema of the rest of its
 * rows — the row schema less the head's fields, so that head and rest checked apart are the row checked
 * whole (the schema checks each field by itself), the head once. A copy of each checked row and of its
 * params, which the whole row's check makes, made a quarter of merge's time in collecting the garbage.
 */
const headChecks = new WeakMap<object, { issue?: string; rest: z.ZodType }>();
const restSchemas = new Map<string, z.ZodType>();

function splitIssue(head: Record<string, unknown>, rest: Record<string, unknown>): string | undefined {
  let check = headChecks.get(head);
  if (!check) {
    const keys = Object.keys(head).filter(
      (key) => key in ResultRowSchema.shape,
    ) as (keyof typeof ResultRowSchema.shape)[];
    const picked = Object.fromEntries(keys.map((key) => [key, true] as const)) as Partial<
      Record<keyof typeof ResultRowSchema.shape, true>
    >;
    const checked = ResultRowSchema.pick(picked).safeParse(head);
    const restKey = keys.join(",");
    let restSchema = restSchemas.get(restKey);
    if (!restSchema) {
      restSchema = ResultRowSchema.omit(picked);
      restSchemas.set(restKey, restSchema);
    }
    check = { ...(!checked.success && { issue: firstIssue(checked.error) }), rest: restSchema };
    headChecks.set(head, check);
  }
  if (check.issue) return check.issue;
  const checked = check.rest.safeParse(rest);
  return checked.success ? undefined : firstIssue(checked.error);
}

function refusal(rule: RowRule, row: ResultRow): string | undefined {
  if (row.hosts)
    return `already a row of several hosts (${row.hosts.map((h) => h.host).join(", ")}); merge takes runs of one host each`;
  if (rule.kind === "run")
    return row.specHash !== rule.specHash
      ? `a row of another spec (hash ${row.specHash}, the run's is ${rule.specHash})`
      : undefined;
  if (row.source !== "shell")
    return `a row of ${row.source === "run" ? "benchspec run" : row.source}: merge takes run directories for those, and the compiled script's rows as its output files`;
  if (row.specHash !== rule.specHash)
    return `rows of two specs (hashes ${rule.specHash} and ${row.specHash}): each input is one copy's output`;
  if (row.host !== rule.host)
    return `rows of 2 hosts (${rule.host ?? "none named"}, ${row.host ?? "none named"}): each input is one copy's output`;
  return undefined;
}

/**
 * Per merged row, in order, the rows of its repetition where `places` says they are (per input: the line's
 * byte offset, length and number; for rows in memory, their index, 0 and index + 1; 0, 0, 0 when the input
 * lacks it): merged, written to `out`, folded into `model`. A row that is refused refuses the merge.
 */
export function mergeRows(
  given: readonly RowInput[],
  places: Float64Array,
  model: RunModel,
  out: { results: string; timeseries: string; telemetry: string },
): MergedRows {
  const n = given.length;
  const inputs = given.map((input) => new InputRows(input));
  const writers = {
    results: new NdjsonWriter(out.results),
    timeseries: new NdjsonWriter(out.timeseries),
    telemetry: new NdjsonWriter(out.telemetry),
  };
  const missing = new CaseNotes();
  const apart = new Map<string, { reps: number[]; spread: number; shortest: number }>();
  const cases = new Set<string>();
  let count = 0;
  // The series and telemetry by key string, looked up only when an input has any (most have neither).
  const keyed = inputs.some((input) => input.series.size + input.telemetry.size > 0);
  const present: InputRows[] = [];
  const rows: ResultRow[] = [];
  try {
    for (let at = 0; at < places.length; at += n * PLACE) {
      present.length = 0;
      rows.length = 0;
      for (let i = 0; i < n; i += 1) {
        const place = at + i * PLACE;
        if (places[place + 2] === 0) continue;
        const row = inputs[i]!.row(places[place]!, places[place + 1]!, places[place + 2]!);
        if (typeof row === "string") throw new BenchspecError("invalid-input", row);
        present.push(inputs[i]!);
        rows.push(row);
      }
      const { row, series, telemetry } = mergeRepetition(present, rows, keyed);
      writers.results.write(row);
      for (const point of series) {
        writers.timeseries.write(point);
        model.addPoint(point);
      }
      for (const sample of telemetry) writers.telemetry.write(sample);
      model.addRow(row);
      cases.add(row.case);
      count += 1;
      if (row.warmup) continue;
      const absent = inputs.filter((input) => !present.includes(input)).map((input) => input.input.host);
      if (absent.length > 0) missing.add(row.case, row.repetition, `not on ${absent.join(", ")}`);
      const shortest = minOf(rows.map((r) => r.seconds));
      const spread = row.startSpread ?? 0;
      if (present.length > 1 && spread > shortest) {
        const seen = apart.get(row.case) ?? { reps: [], spread, shortest };
        apart.set(row.case, {
          reps: [...seen.reps, row.repetition],
          spread: Math.max(seen.spread, spread),
          shortest: Math.min(seen.shortest, shortest),
        });
      }
    }
  } finally {
    for (const writer of Object.values(writers)) writer.close();
    for (const input of inputs) input.close();
  }
  return {
    count,
    cases: cases.size,
    incomplete: !missing.empty,
    spans: inputs.map((input) => input.span),
    notes: [
      ...missing.lines("merged from the hosts that have it"),
      ...[...apart].map(
        ([caseId, { reps, spread, shortest }]) =>
          `${caseId}, ${repetitions(reps)}: the hosts' starts are up to ${formatSeconds(spread)} apart, longer than the shortest host's repetition (${formatSeconds(shortest)}); the common window spans hosts that did not run together (or whose clocks disagree: they must be synchronised, e.g. by NTP), so its throughput is not that of concurrent load`,
      ),
    ],
  };
}

interface MergedRow {
  row: ResultRow;
  series: TimeseriesRow[];
  telemetry: TelemetryRow[];
}

/** One repetition's rows of the inputs that have it, as one row of their hosts. */
function mergeRepetition(
  present: readonly InputRows[],
  rows: readonly ResultRow[],
  keyed: boolean,
): MergedRow {
  const first = rows[0]!;
  const key = keyed ? repetitionKey(first) : "";
  const parts: HostMeasurement[] = present.map((input, i) => ({
    host: input.input.host,
    measurement: measurementOf(rows[i]!, input.series.get(key), input.telemetry.get(key)),
  }));
  const sample = first.params.sample;
  const merged = mergeHostMeasurements(parts, typeof sample === "number" ? sample : undefined);
  const { timeseries, samples } = merged;
  // The identity, then what was measured, less what is written apart (series, samples) and errorCode (for
  // a runner, not the row): field by field, not a rest and a spread (two copies of the row).
  const row = identityOf(first) as ResultRow;
  for (const field in merged)
    if (!APART_FROM_ROW.has(field))
      (row as unknown as Record<string, unknown>)[field] = merged[field as keyof Measurement];
  const series = (timeseries ?? []).map((point) => ({
    case: row.case,
    repetition: row.repetition,
    warmup: row.warmup,
    ...point,
  }));
  const origin = Date.parse(row.start);
  const telemetry = (samples ?? []).map((sample): TelemetryRow => ({
    case: row.case,
    repetition: row.repetition,
    warmup: row.warmup,
    ...sample,
    t: (sample.t - origin) / 1000,
  }));
  return { row, series, telemetry };
}

function measurementOf(
  row: ResultRow,
  series: readonly TimeseriesRow[] | undefined,
  telemetry: readonly TelemetryRow[] | undefined,
): Measurement {
  // Rest destructuring, not a filter over entries: 5.6 s → 1.9 s of its own time over two million rows.
  const {
    v: _v,
    source: _source,
    spec: _spec,
    specHash: _specHash,
    case: _case,
    workload: _workload,
    target: _target,
    engine: _engine,
    op: _op,
    params: _params,
    repetition: _repetition,
    warmup: _warmup,
    latencyBins,
    host: _host,
    ...rest
  } = row;
  // Every IdentityField is left out above (this fails to compile if one is added there and not here).
  const everyIdentityLeftOut: [keyof typeof rest & IdentityField] extends [never] ? true : never = true;
  void everyIdentityLeftOut;
  const measured = rest as Measurement;
  // Most rows: what was measured as it is (a copy more of each cost a second over a million rows).
  if (!(latencyBins && !measured.histograms?.latency) && !series?.length && !telemetry?.length)
    return measured;
  const origin = Date.parse(row.start);
  return {
    ...measured,
    // The script's latencies as the histogram benchspec run would have kept, so the hosts' pool.
    ...(latencyBins &&
      !measured.histograms?.latency && {
        histograms: {
          ...measured.histograms,
          latency: encodeBins(Object.entries(latencyBins).map(([ns, n]) => [Number(ns), n] as const)),
        },
      }),
    ...(series?.length && { timeseries: series.map(({ t, throughput, iops }) => ({ t, throughput, iops })) }),
    // Back on the run's clock: a stored sample's t counts from its repetition's start.
    ...(telemetry?.length && {
      samples: telemetry.map(({ t, seconds, cpu, net, disk, procs }) => ({
        t: origin + t * 1000,
        seconds,
        cpu,
        net,
        disk,
        procs,
      })),
    }),
  };
}

function byRepetition<T extends { case: string; repetition: number; warmup?: boolean }>(
  rows: Iterable<T>,
): Map<string, T[]> {
  const grouped = new Map<string, T[]>();
  for (const row of rows) {
    const key = repetitionKey(row);
    const list = grouped.get(key);
    if (list) list.push(row);
    else grouped.set(key, [row]);
  }
  return grouped;
}

/** Per case, the repetitions that share a note; one line per case and note. */
class CaseNotes {
  private readonly cases = new Map<string, Map<string, number[]>>();

  add(caseId: string, repetition: number, note: string): void {
    const notes = this.cases.get(caseId) ?? new Map<string, number[]>();
    notes.set(note, [...(notes.get(note) ?? []), repetition]);
    this.cases.set(caseId, notes);
  }

  get empty(): boolean {
    return this.cases.size === 0;
  }

  lines(consequence: string): string[] {
    return [...this.cases].flatMap(([caseId, notes]) =>
      [...notes].map(([note, reps]) => `${caseId}, ${repetitions(reps)}: ${note}; ${consequence}`),
    );
  }
}

const repetitions = (reps: readonly number[]) => `repetition${reps.length > 1 ? "s" : ""} ${reps.join(", ")}`;
const formatSeconds = (seconds: number) => `${Number(seconds.toPrecision(3))} s`;
