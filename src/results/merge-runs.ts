/**
 * `benchspec merge`: runs of one spec, each measured on its own host (by hand, or by another scheduler),
 * into one run directory whose rows are merged per case × repetition exactly as a run on several hosts at
 * once merges them (merge-hosts.ts). The hosts' clocks are taken to agree (NTP): a row's start and end are
 * compared across hosts as they are. An input is a run directory of `benchspec run`, or what a copy of the
 * compiled script printed (its results file, or a directory holding it as results.ndjson, with the
 * timeseries.ndjson it kept) with compile's plan.json beside it or one directory up.
 *
 *   1. read   each input: its state, plan.json, provenance.json, the index of its rows that stand
 *   2. check  one spec (the spec hash, which covers --set), one kind of input, host names told apart
 *   3. merge  per case × repetition (× warm-up): the hosts that have it, their series with them; each row
 *             parsed and checked as it is read (merge-rows.ts), the replaced ones apart — a broken row
 *             refuses the input, naming its line
 *   4. write  the run directory: rows, series, summary, provenance (with the runs merged and the notes)
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { cp, mkdir, readdir } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { BenchspecError } from "../platform/errors.js";
import { loadSpec } from "../engines/language.js";
import type { Plan } from "../plan/types.js";
import { checkedRow, mergeRows, PLACE, type MergedRows, type RowInput, type RowRule } from "./merge-rows.js";
import { RowTextParser } from "./row-text.js";
import { RowsInMemory, StandingRowIndex } from "./standing-rows.js";
import { PlacedLines } from "./ndjson.js";
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
   * The row that stands per case × repetition × warm-up (a retried failure's last): a run's are indexed
   * and read back from its file by their places (StandingRowIndex: a million rows do not fit in memory),
   * a fio-client output's are few.
   */
  rows: StandingRowIndex | RowsInMemory;
  /** What every row must be besides a result row of one host. */
  rule: RowRule;
  /** Its time series and telemetry files, when it kept any. */
  timeseries?: string;
  telemetry?: string;
}

/** plan.json, the compiled index (compile's Plan, written as JSON): the spec's name is its `spec`. */
type PlanJson = Pick<Plan, "specHash" | "cases" | "expect" | "report" | "workloads"> & { spec: string };

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
  const model = new RunModel(plan, { series: runs.some((run) => run.timeseries !== undefined) });
  const { notes, incomplete, count, cases } = mergeInputs(runs, model, paths);
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
  return { dir: out, rows: count, cases, notes, model };
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
  const rows = await readInputRows(given, runPaths(dir).results);
  const series = keptFile(runPaths(dir).timeseries);
  const telemetry = keptFile(runPaths(dir).telemetry);
  return [
    {
      kind: "run",
      dir,
      host: name,
      state,
      plan,
      ...(provenance && { provenance }),
      rows,
      rule: { kind: "run", specHash: state.specHash },
      ...(series && { timeseries: series }),
      ...(telemetry && { telemetry }),
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
      state: scriptState(`fio-client-${hosts.group}`, plan.specHash),
      plan,
      planFile,
      rows: new RowsInMemory(rows),
      // Made here from fio's output, as the script's copy would have printed them.
      rule: { kind: "script", specHash: plan.specHash, host: undefined },
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
  const rows = await readInputRows(given, file);
  // The first row says the spec and the host that every other row must share (checked as they are read).
  const first = rows.place(rows.first())!;
  const lines = new PlacedLines(file);
  const text = lines.text(first.offset, first.bytes);
  lines.close();
  const probe = parseOr(text);
  const rule: RowRule = {
    kind: "script",
    specHash: typeof probe.specHash === "string" ? probe.specHash : "",
    host: typeof probe.host === "string" ? probe.host : undefined,
  };
  const checked = checkedRow(rows, rule, text, first.line, new RowTextParser());
  if (typeof checked === "string") throw new BenchspecError("invalid-input", checked);
  const { specHash } = rule;
  const name = host ?? rule.host;
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
      `${given}: no ${RUN_FILES.plan.name} of its spec (hash ${specHash.slice(0, 12)}) beside it or one directory up; compile writes one next to benchspec.sh: copy it there`,
    );
  const series = keptFile(runPaths(dir).timeseries);
  return {
    kind: "script",
    dir: path,
    host: name,
    state: scriptState(`script-${name}`, specHash),
    plan: readPlanJson(planFile)!,
    planFile,
    rows,
    rule,
    ...(series && { timeseries: series }),
  };
}

/** The file, if it is there with something in it. */
const keptFile = (file: string) => (existsSync(file) && statSync(file).size > 0 ? file : undefined);

/** A line's JSON object, or an empty one (what is wrong with it is said when it is checked). */
function parseOr(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The run state of rows that came without one (a script's output): complete; its span, the rows' (mergeRows). */
function scriptState(runId: string, specHash: string): RunState {
  return {
    format: RUN_FORMAT,
    status: "complete",
    runId,
    specFile: "",
    specHash,
    sets: [],
    start: "",
    end: "",
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

/** The input's rows, indexed (each is checked when it is read). */
async function readInputRows(given: string, file: string): Promise<StandingRowIndex> {
  if (!existsSync(file))
    throw new BenchspecError("invalid-input", `${given}: no ${RUN_FILES.results.name}, so no rows to merge`);
  return StandingRowIndex.build(file);
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

/**
 * Per case × repetition × warm-up, in the order the inputs list them (the first input's repetitions, then
 * those only later inputs have): the hosts that have it, merged (merge-rows.ts) into the run's files and
 * `model`.
 */
function mergeInputs(
  runs: readonly Input[],
  model: RunModel,
  paths: ReturnType<typeof runPaths>,
): Omit<MergedRows, "spans"> {
  const inputs = runs.map(rowInput);
  checkSuperseded(runs);
  const places = placesInOrder(runs);
  // What the merge needs of the indexes is in `places` now: their memory is the merge's.
  for (const run of runs) if (run.rows instanceof StandingRowIndex) run.rows.release();
  const { spans, ...merged } = mergeRows(inputs, places, model, paths);
  // A script's rows say when they ran: its state's span is theirs.
  for (const [i, run] of runs.entries()) {
    if (run.kind !== "script") continue;
    run.state.start = spans[i]!.start;
    run.state.end = spans[i]!.end;
  }
  return merged;
}

function rowInput(run: Input): RowInput {
  const { rows } = run;
  return {
    host: run.host,
    source:
      rows instanceof StandingRowIndex
        ? { file: rows.file, lines: rows.lines, torn: rows.torn }
        : { rows: rows.standing() },
    rule: run.rule,
    ...(run.timeseries && { timeseries: run.timeseries }),
    ...(run.telemetry && { telemetry: run.telemetry }),
  };
}

/** The rows a later row of their repetition replaced are not merged, but checked as the merged ones are. */
function checkSuperseded(runs: readonly Input[]): void {
  for (const run of runs) {
    if (!(run.rows instanceof StandingRowIndex)) continue;
    const lines = new PlacedLines(run.rows.file);
    const parser = new RowTextParser();
    try {
      for (const { offset, bytes, line } of run.rows.superseded()) {
        const row = checkedRow(run.rows, run.rule, lines.text(offset, bytes), line, parser);
        if (typeof row === "string") throw new BenchspecError("invalid-input", row);
      }
    } finally {
      lines.close();
    }
  }
}

/** Per merged row, in order, where each input's row of its repetition is (as mergeRows takes them). */
function placesInOrder(runs: readonly Input[]): Float64Array {
  const width = runs.length * PLACE;
  // The first input's repetitions, then those only later inputs have: counted, then placed.
  const merged = function* () {
    for (const [k, run] of runs.entries())
      for (const ref of run.rows.refs())
        if (runs.every((earlier, j) => j >= k || !earlier.rows.has(ref))) yield ref;
  };
  let count = 0;
  for (const ref of merged()) if (ref) count += 1;
  const places = new Float64Array(count * width);
  const memoryIndex = runs.map((run) =>
    run.rows instanceof RowsInMemory ? new Map(run.rows.standing().map((row, i) => [row, i])) : undefined,
  );
  let at = 0;
  for (const ref of merged()) {
    for (const [i, run] of runs.entries()) {
      if (run.rows instanceof StandingRowIndex) {
        const place = run.rows.place(ref);
        if (place) places.set([place.offset, place.bytes, place.line], at + i * PLACE);
      } else {
        const row = run.rows.get(ref);
        const index = row && memoryIndex[i]!.get(row)!;
        if (index !== undefined) places.set([index, 0, index + 1], at + i * PLACE);
      }
    }
    at += width;
  }
  return places;
}

const earliest = (times: readonly string[]) => [...times].sort()[0]!;
const latest = (times: readonly string[]) => [...times].sort().at(-1)!;
