/**
 * `benchspec merge`: runs of one spec, each measured on its own host (by hand, or by another scheduler),
 * into one run directory whose rows are merged per case × repetition exactly as a run on several hosts at
 * once merges them (merge-hosts.ts). The hosts' clocks are taken to agree (NTP): a row's start and end are
 * compared across hosts as they are. An input is a run directory of `benchspec run`, or what a copy of the
 * compiled script printed (its results file, or a directory holding it as results.ndjson, with the
 * timeseries.ndjson it kept) with compile's plan.json beside it or one directory up.
 *
 *   1. read   each input: its state, plan.json, provenance.json, every row (a broken one refuses the input)
 *   2. check  one spec (the spec hash, which covers --set), one kind of input, host names told apart
 *   3. merge  per case × repetition (× warm-up): the hosts that have it, their series with them
 *   4. write  the run directory: rows, series, summary, provenance (with the runs merged and the notes)
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { cp, mkdir, readdir } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import type { Measurement } from "../engines/types.js";
import { BenchspecError } from "../platform/errors.js";
import { loadSpec } from "../engines/language.js";
import type { Plan } from "../plan/types.js";
import { mergeHostMeasurements, type HostMeasurement } from "./merge-hosts.js";
import { NdjsonWriter, readRows } from "./ndjson.js";
import {
  repetitionKey,
  RowsInMemory,
  StandingRowIndex,
  type RepetitionRef,
  type StandingRows,
} from "./standing-rows.js";
import type { CaseIdentityField, ResultRow, TimeseriesRow } from "../rows/row.js";
import type { TelemetryRow } from "../rows/telemetry.js";
import {
  readRunJson,
  readRunState,
  RUN_FILES,
  RUN_FORMAT,
  runPaths,
  writeRunJson,
  type MergedRun,
  type Provenance,
  type RunFile,
  type RunState,
} from "./run-dir.js";
import { summaryOfModel } from "./summary.js";
import { RunModel } from "./model/accumulator.js";
import {
  fioClientRows,
  isFioClientOutput,
  readFioClientHosts,
  type FioClientHosts,
} from "./fio-client-input.js";
import { minOf } from "../rows/stats.js";
import { encodeBins } from "../rows/histogram.js";

export interface MergeInput {
  dir: string;
  /** The host its rows are named by (default: its provenance's hostname). */
  host?: string;
}

export interface MergeResult {
  dir: string;
  rows: number;
  cases: number;
  /** Cases some host lacks, and repetitions whose hosts did not run together: also in provenance.json. */
  notes: string[];
  /** The merged rows and series, folded in (the report is made from it, not from the rows read back). */
  model: RunModel;
}

interface Input {
  /** A run directory of `benchspec run`, or the rows a copy of the compiled script printed. */
  kind: "run" | "script";
  dir: string;
  host: string;
  state: RunState;
  plan: PlanJson;
  /** A script input's plan.json (a run's is among the files copied from its directory). */
  planFile?: string;
  provenance?: Provenance;
  /**
   * The row that stands per case × repetition × warm-up (a retried failure's last): a run's are read back
   * from its file one at a time (StandingRowIndex: a million rows do not fit in memory), a fio-client
   * output's are few.
   */
  rows: StandingRows;
  series: Map<string, TimeseriesRow[]>;
  telemetry: Map<string, TelemetryRow[]>;
}

/** plan.json, the compiled index (compile's Plan, written as JSON): the spec's name is its `spec`. */
type PlanJson = Pick<Plan, "specHash" | "cases" | "expect" | "report" | "workloads"> & { spec: string };

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

/** The run files that are a run's own measurements, not the spec's (the rest is copied from the first input). */
const MEASURED: readonly RunFile[] = [
  "state",
  "results",
  "timeseries",
  "telemetry",
  "raw",
  "summary",
  "provenance",
  "report",
  "lock",
  "leftovers",
];

export async function mergeRuns(inputs: readonly MergeInput[], out: string): Promise<MergeResult> {
  const runs: Input[] = [];
  for (const input of inputs) runs.push(...(await readInput(input)));
  if (runs.length < 2)
    throw new BenchspecError(
      "usage",
      "merge needs at least two run directories (one per host), or the output of a compiled fio-client script",
    );
  checkOneKind(runs);
  checkSameSpec(runs);
  checkHostNames(runs);
  await checkMergeOutput(out);

  const paths = runPaths(out);
  const first = runs[0]!;
  if (first.planFile) await cp(first.planFile, paths.plan);
  else {
    for (const entry of await readdir(first.dir)) {
      if (MEASURED.some((file) => RUN_FILES[file].name === entry)) continue;
      await cp(join(first.dir, entry), join(out, entry), { recursive: true });
    }
  }
  // A script's copies have no spec file: compile's plan.json holds what the figures are decided by.
  const plan = first.kind === "script" ? first.plan : await runPlan(first);
  // Row by row: written, and folded into the model as they are merged: the summary's and the report's.
  // Without time series there is nothing to place on the repetitions' clocks: their starts are not kept.
  const model = new RunModel(plan, { series: runs.some((run) => run.series.size > 0) });
  const cases = new Set<string>();
  let count = 0;
  const writers = {
    results: new NdjsonWriter(paths.results),
    timeseries: new NdjsonWriter(paths.timeseries),
    telemetry: new NdjsonWriter(paths.telemetry),
  };
  let merged: { notes: string[]; incomplete: boolean };
  try {
    merged = mergeRows(runs, ({ row, series, telemetry }) => {
      writers.results.write(row);
      for (const point of series) {
        writers.timeseries.write(point);
        model.addPoint(point);
      }
      for (const sample of telemetry) writers.telemetry.write(sample);
      model.addRow(row);
      cases.add(row.case);
      count += 1;
    });
  } finally {
    for (const writer of Object.values(writers)) writer.close();
    for (const run of runs) run.rows.close?.();
  }
  const { notes, incomplete } = merged;
  const summary = summaryOfModel(plan, model);
  const skipped = await Promise.all(
    runs.map(async (run) =>
      ((await readRunJson(run.dir, "summary"))?.skipped ?? []).map((s) => ({
        case: s.case,
        reason: `${run.host}: ${s.reason}`,
      })),
    ),
  );
  await writeRunJson(out, "summary", { ...summary, skipped: skipped.flat() });
  const start = earliest(runs.map((r) => r.state.start));
  const ends = runs.flatMap((r) => (r.state.end ? [r.state.end] : []));
  const end = ends.length === runs.length ? latest(ends) : undefined;
  const base = first.provenance;
  const mergedRuns: MergedRun[] = runs.map((r) => ({
    host: r.host,
    dir: r.dir,
    runId: r.state.runId,
    status: r.state.status,
    start: r.state.start,
    ...(r.state.end && { end: r.state.end }),
    ...(r.provenance && { hostname: r.provenance.host.hostname }),
  }));
  if (base) {
    await writeRunJson(out, "provenance", {
      ...base,
      runId: `merged-${first.state.runId}`,
      targets: {},
      start,
      end,
      merged: { runs: mergedRuns, notes },
    });
  }
  await writeRunJson(out, "state", {
    format: RUN_FORMAT,
    status: runs.every((r) => r.state.status === "complete") && !incomplete ? "complete" : "partial",
    runId: `merged-${first.state.runId}`,
    specFile: first.state.specFile,
    specHash: first.state.specHash,
    sets: first.state.sets,
    start,
    ...(end && { end }),
    // Where the report finds them when there is no provenance (the script's copies record none).
    ...(!base && { merged: { runs: mergedRuns, notes } }),
  });
  return { dir: out, rows: count, cases: cases.size, notes, model };
}

/** An input's hosts: one for a run or a script copy's output, every host of a fio-client script's output. */
async function readInput(input: MergeInput): Promise<Input[]> {
  const { dir: given, host } = input;
  const dir = resolve(given);
  if (!existsSync(dir))
    throw new BenchspecError("invalid-input", `${given}: no such run directory or results file`);
  const isDir = statSync(dir).isDirectory();
  if (isDir && isFioClientOutput(dir)) return readFioClientInput(given, dir);
  if (!isDir || !existsSync(runPaths(dir).state)) return [await readScriptInput(input, isDir)];
  const state = await readRunState(dir);
  const plan = (await readRunJson(dir, "plan")) as PlanJson | undefined;
  if (!plan || !Array.isArray(plan.cases))
    throw new BenchspecError(
      "invalid-input",
      `${given}: no plan.json (the run's cases), so not a run to merge`,
    );
  const provenance = await readRunJson(dir, "provenance");
  const name = host ?? provenance?.host?.hostname;
  if (!name)
    throw new BenchspecError(
      "invalid-input",
      `${given}: no provenance.json naming its host; name it on the command line (${given}=<host>)`,
    );
  const rows = await readInputRows(given, runPaths(dir).results, (row) =>
    row.specHash !== state.specHash
      ? `a row of another spec (hash ${row.specHash}, the run's is ${state.specHash})`
      : undefined,
  );
  const series = byRepetition(readRows<TimeseriesRow>(runPaths(dir).timeseries));
  const telemetry = byRepetition(readRows<TelemetryRow>(runPaths(dir).telemetry));
  return [
    {
      kind: "run",
      dir,
      host: name,
      state,
      plan,
      ...(provenance && { provenance }),
      rows,
      series,
      telemetry,
    },
  ];
}

/**
 * What a compiled fio-client script left (fio-client-input.ts): one input per host of its group, rows as a
 * copy of the compiled script would have printed them, and compile's plan.json it copied beside them.
 */
function readFioClientInput(given: string, dir: string): Input[] {
  const planFile = runPaths(dir).plan;
  const plan = readPlanJson(planFile);
  if (!plan)
    throw new BenchspecError(
      "invalid-input",
      `${given}: no ${RUN_FILES.plan.name} (the script copies it there)`,
    );
  let hosts: FioClientHosts;
  try {
    hosts = readFioClientHosts(dir);
  } catch (error) {
    throw new BenchspecError("invalid-input", `${given}: ${(error as Error).message}`);
  }
  const perHost = fioClientRows(dir, hosts, plan.cases, plan);
  if (perHost.every((rows) => rows.length === 0))
    throw new BenchspecError("invalid-input", `${given}: no repetition of host group ${hosts.group} in it`);
  return hosts.hosts.map((host, k) => {
    const rows = perHost[k]!;
    return {
      kind: "script",
      dir,
      host,
      state: scriptState(`fio-client-${hosts.group}`, plan.specHash, Span.of(rows)),
      plan,
      planFile,
      rows: new RowsInMemory(rows),
      series: new Map(),
      telemetry: new Map(),
    };
  });
}

/**
 * What one copy of the compiled script printed: its rows (every one of the script, of one spec and one
 * host), the series it kept beside them, and compile's plan.json of that spec beside them or one up.
 */
async function readScriptInput({ dir: given, host }: MergeInput, isDir: boolean): Promise<Input> {
  const path = resolve(given);
  const file = isDir ? runPaths(path).results : path;
  const dir = dirname(file);
  if (isDir && !existsSync(file))
    throw new BenchspecError(
      "invalid-input",
      `${given}: not a run directory (no ${RUN_FILES.state.name}) and no ${RUN_FILES.results.name} of a compiled script in it`,
    );
  let specHash: string | undefined;
  const hosts = new Set<string>();
  const span = new Span();
  const rows = await readInputRows(given, file, (row) => {
    span.add(row);
    if (row.source !== "shell")
      return `a row of ${row.source === "run" ? "benchspec run" : row.source}: merge takes run directories for those, and the compiled script's rows as its output files`;
    specHash ??= row.specHash;
    if (row.specHash !== specHash)
      return `rows of two specs (hashes ${specHash} and ${row.specHash}): each input is one copy's output`;
    if (row.host !== undefined) hosts.add(row.host);
    return undefined;
  });
  if (rows.size === 0) throw new BenchspecError("invalid-input", `${given}: no result rows to merge`);
  if (hosts.size > 1)
    throw new BenchspecError(
      "invalid-input",
      `${given}: rows of ${hosts.size} hosts (${[...hosts].join(", ")}): each input is one copy's output`,
    );
  const name = host ?? [...hosts][0];
  if (!name)
    throw new BenchspecError(
      "invalid-input",
      `${given}: its rows name no host (the script names it when run as one of several, BENCHSPEC_HOST_COUNT); name it on the command line (${given}=<host>)`,
    );
  const planFile = [dir, dirname(dir)]
    .map((d) => runPaths(d).plan)
    .find((f) => existsSync(f) && (readPlanJson(f)?.specHash ?? "") === specHash);
  if (!planFile)
    throw new BenchspecError(
      "invalid-input",
      `${given}: no ${RUN_FILES.plan.name} of its spec (hash ${specHash!.slice(0, 12)}) beside it or one directory up; compile writes one next to benchspec.sh: copy it there`,
    );
  return {
    kind: "script",
    dir: path,
    host: name,
    state: scriptState(`script-${name}`, specHash!, span),
    plan: readPlanJson(planFile)!,
    planFile,
    rows,
    series: byRepetition(readRows<TimeseriesRow>(runPaths(dir).timeseries)),
    telemetry: new Map(),
  };
}

/** The earliest start and the latest end of rows (ISO instants: their text orders them). */
class Span {
  start = "";
  end = "";

  static of(rows: readonly ResultRow[]): Span {
    const span = new Span();
    for (const row of rows) span.add(row);
    return span;
  }

  add(row: Pick<ResultRow, "start" | "end">): void {
    if (this.start === "" || row.start < this.start) this.start = row.start;
    if (row.end > this.end) this.end = row.end;
  }
}

/** The run state of rows that came without one (a script's output): complete, over the rows' span. */
function scriptState(runId: string, specHash: string, span: Span): RunState {
  return {
    format: RUN_FORMAT,
    status: "complete",
    runId,
    specFile: "",
    specHash,
    sets: [],
    start: span.start,
    end: span.end,
  };
}

function readPlanJson(file: string): PlanJson | undefined {
  try {
    const plan = JSON.parse(readFileSync(file, "utf8")) as PlanJson;
    return Array.isArray(plan.cases) ? plan : undefined;
  } catch {
    return undefined;
  }
}

function byRepetition<T extends { case: string; repetition: number; warmup?: boolean }>(
  rows: Iterable<T>,
): Map<string, T[]> {
  const grouped = new Map<string, T[]>();
  for (const row of rows) {
    const key = repetitionKey(row);
    grouped.set(key, [...(grouped.get(key) ?? []), row]);
  }
  return grouped;
}

/** Every line a result row that `accept`s, measured on one host: anything else refuses the input. */
async function readInputRows(
  given: string,
  file: string,
  accept: (row: ResultRow) => string | undefined,
): Promise<StandingRowIndex> {
  if (!existsSync(file))
    throw new BenchspecError("invalid-input", `${given}: no ${RUN_FILES.results.name}, so no rows to merge`);
  return StandingRowIndex.build(file, {
    strict: {
      accept: (row) =>
        row.hosts
          ? `already a row of several hosts (${row.hosts.map((h) => h.host).join(", ")}); merge takes runs of one host each`
          : accept(row),
    },
  });
}

/** The run's plan, from the spec it keeps (spec.yaml) and its --set: what its figures are decided by. */
async function runPlan(run: Input): Promise<Plan> {
  const file = runPaths(run.dir).spec;
  const loaded = await loadSpec(file, {
    ...(run.state.only && { only: run.state.only }),
    sets: run.state.sets,
    ...(run.state.hosts && { hosts: run.state.hosts }),
  });
  if (!loaded.plan)
    throw new BenchspecError(
      "invalid-input",
      `${file}: the run's spec is not valid any more (${loaded.diagnostics[0]?.message ?? "no plan"})`,
    );
  return loaded.plan;
}

function checkOneKind(runs: readonly Input[]): void {
  const script = runs.find((run) => run.kind === "script");
  const run = runs.find((r) => r.kind === "run");
  if (script && run)
    throw new BenchspecError(
      "invalid-input",
      `${script.dir} holds the compiled script's rows and ${run.dir} is a run of benchspec run: their figures are not measured alike (compare says why), so they do not merge`,
    );
}

function checkSameSpec(runs: readonly Input[]): void {
  const [first, ...rest] = runs;
  for (const run of rest) {
    if (run.state.specHash !== first!.state.specHash)
      throw new BenchspecError(
        "invalid-input",
        `${run.dir}: a run of another spec (${run.plan.spec}, hash ${run.state.specHash.slice(0, 12)}; ${first!.dir} ran ${first!.plan.spec}, hash ${first!.state.specHash.slice(0, 12)}): only runs of one spec, with the same --set, merge`,
      );
  }
}

function checkHostNames(runs: readonly Input[]): void {
  const seen = new Map<string, string>();
  for (const run of runs) {
    const other = seen.get(run.host);
    if (other !== undefined)
      throw new BenchspecError(
        "invalid-input",
        `${other} and ${run.dir} both ran on host "${run.host}"; name each on the command line (DIR=name) to merge them`,
      );
    seen.set(run.host, run.dir);
  }
}

/** The merged run's directory: new or empty, its parent made if missing (merge fills it whole, then renames). */
export async function checkMergeOutput(out: string): Promise<void> {
  if (existsSync(out) && (!statSync(out).isDirectory() || (await readdir(out)).length > 0))
    throw new BenchspecError("unwritable-output", `${out} exists and is not an empty directory`);
  try {
    await mkdir(dirname(resolve(out)), { recursive: true });
  } catch (error) {
    throw new BenchspecError("unwritable-output", `cannot create ${out}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

interface MergedRow {
  row: ResultRow;
  series: TimeseriesRow[];
  telemetry: TelemetryRow[];
}

/**
 * Per case × repetition × warm-up, in the order the inputs list them: the hosts that have it, merged. Notes
 * name the measured repetitions some host lacks, and those whose hosts' starts lie further apart than the
 * shortest host's repetition (they did not run together, or their clocks disagree).
 */
function mergeRows(
  runs: readonly Input[],
  use: (merged: MergedRow) => void,
): { notes: string[]; incomplete: boolean } {
  const missing = new CaseNotes();
  const apart = new Map<string, { reps: number[]; spread: number; shortest: number }>();
  // The series and telemetry by key string, built only when an input has any (most have neither).
  const keyed = runs.some((run) => run.series.size + run.telemetry.size > 0);
  const mergeRepetition = (ref: RepetitionRef): MergedRow => {
    const present = runs.filter((run) => run.rows.has(ref));
    const rows = present.map((run) => run.rows.get(ref)!);
    const first = rows[0]!;
    const key = keyed ? repetitionKey(ref) : "";
    const parts: HostMeasurement[] = present.map((run, i) => ({
      host: run.host,
      measurement: measurementOf(rows[i]!, run.series.get(key), run.telemetry.get(key)),
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
    if (!first.warmup) {
      const absent = runs.filter((run) => !present.includes(run)).map((run) => run.host);
      if (absent.length > 0) missing.add(row.case, row.repetition, `not on ${absent.join(", ")}`);
      const shortest = minOf(rows.map((r) => r.seconds));
      const spread = merged.startSpread ?? 0;
      if (present.length > 1 && spread > shortest) {
        const seen = apart.get(row.case) ?? { reps: [], spread, shortest };
        apart.set(row.case, {
          reps: [...seen.reps, row.repetition],
          spread: Math.max(seen.spread, spread),
          shortest: Math.min(seen.shortest, shortest),
        });
      }
    }
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
  };
  // In the order the inputs list them: the first input's repetitions, then those only later inputs have.
  for (const [k, run] of runs.entries())
    for (const ref of run.rows.refs())
      if (runs.every((earlier, j) => j >= k || !earlier.rows.has(ref))) use(mergeRepetition(ref));
  return {
    incomplete: !missing.empty,
    notes: [
      ...missing.lines("merged from the hosts that have it"),
      ...[...apart].map(
        ([caseId, { reps, spread, shortest }]) =>
          `${caseId}, ${repetitions(reps)}: the hosts' starts are up to ${formatSeconds(spread)} apart, longer than the shortest host's repetition (${formatSeconds(shortest)}); the common window spans hosts that did not run together (or whose clocks disagree: they must be synchronised, e.g. by NTP), so its throughput is not that of concurrent load`,
      ),
    ],
  };
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
const earliest = (times: readonly string[]) => [...times].sort()[0]!;
const latest = (times: readonly string[]) => [...times].sort().at(-1)!;
