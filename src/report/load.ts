/**
 * Loading what a report is made of, from any of:
 *   - a run directory (results/run-dir.ts: plan.json, results.ndjson, timeseries.ndjson, provenance.json,
 *     run.json, raw/; telemetry.ndjson is read later, for the cases a chart draws),
 *   - a results NDJSON file: benchspec's own, or what a compiled shell script printed (a plan.json beside
 *     it with the same spec hash is used, as `compile` writes one next to the script),
 *   - fio's own JSON output (several files: repetitions of the same jobs).
 * Rows stream through the run model (results/model/): only its per-case values stay in memory, and every
 * figure the report shows is the model's. A large results file is parsed on
 * several threads (rows-threads.ts), with the same result.
 */
import { existsSync, statSync } from "node:fs";
import { open, readFile, readdir } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { parseFioJson } from "../engines/fio/results.js";
import { BenchspecError } from "../platform/errors.js";
import { describeFileType } from "../platform/fs-errors.js";
import type { PlannedExpect, PlannedRounds } from "../plan/types.js";
import { importFioOutputs, isFioJson, type SteadyWindow } from "../results/import-fio.js";
import { readNdjson, scanStats, type NdjsonScan } from "../results/ndjson.js";
import type { TimeseriesRow } from "../rows/row.js";
import type { TelemetryRow } from "../rows/telemetry.js";
import { nicLimits } from "../results/summary.js";
import {
  findRunState,
  readRunJson,
  RUN_FILES,
  runPaths,
  type Provenance,
  type RunState,
} from "../results/run-dir.js";
import { RunModel, type ModelOptions, type RowLike } from "../results/model/accumulator.js";
import type { PlanCase } from "../results/model/types.js";
import type { InputKind, PlanLike, RunData } from "./model.js";
import { scanRowsThreaded, type RowThreadOptions } from "./rows-threads.js";
import { DerivedPlan, type RowsPass, type SteadyRow } from "./rows.js";

/** The raw material of one run before it is labelled (labels must be unique across a report). */
export type LoadedRun = Omit<RunData, "label"> & { name: string };

/**
 * How results files are read: threads/threadsFrom (rows-threads.ts) are for large ones. `strict` (compare:
 * a gate must not pass on damaged input): a line that is not a result row, a cut-off last line or rows of
 * several specs are errors instead of notes. `series: false` (compare): the cases' figures only, no time
 * series read.
 */
export type LoadOptions = RowThreadOptions & ModelOptions & { strict?: boolean };

export async function loadInput(path: string, options: LoadOptions = {}): Promise<LoadedRun> {
  const full = resolve(path);
  if (!existsSync(full)) throw new BenchspecError("invalid-input", `${path}: no such file or directory`);
  const stats = statSync(full);
  if (stats.isDirectory()) {
    if (!existsSync(runPaths(full).results)) {
      throw new BenchspecError(
        "invalid-input",
        `${path}: not a benchspec run directory (no ${RUN_FILES.results.name})`,
      );
    }
    return loadRunDir(full, options);
  }
  // A device or FIFO would be read forever (/dev/zero) or block the read (a FIFO without a writer).
  if (!stats.isFile()) {
    throw new BenchspecError(
      "invalid-input",
      `${path} is ${describeFileType(stats)}; expected a run directory, a results NDJSON file or fio JSON output`,
    );
  }
  const head = await readHead(full, 64 * 1024);
  if (isFioJson(head)) return loadFio([full]);
  const dir = dirname(full);
  if (basename(full) === RUN_FILES.results.name && existsSync(runPaths(dir).state))
    return loadRunDir(dir, options);
  return loadResultsFile(full, options);
}

/** Loads every input; fio JSON files given together are one import (repetitions of the same jobs). */
export async function loadInputs(paths: readonly string[], options: LoadOptions = {}): Promise<RunData[]> {
  const loaded: LoadedRun[] = [];
  const fioFiles: string[] = [];
  for (const path of await expandRunsDirs(paths)) {
    const full = resolve(path);
    if (existsSync(full) && statSync(full).isFile() && isFioJson(await readHead(full, 64 * 1024)))
      fioFiles.push(full);
    else loaded.push(await loadInput(path, options));
  }
  if (fioFiles.length > 0) loaded.push(await loadFio(fioFiles));
  return labelRuns(loaded);
}

/**
 * A directory that is not a run but holds runs (`runs/`, where `benchspec run` leaves them) stands for the
 * runs in it, in name order (`run` names them by their start).
 */
export async function expandRunsDirs(paths: readonly string[]): Promise<string[]> {
  const expanded: string[] = [];
  for (const path of paths) {
    const full = resolve(path);
    if (!existsSync(full) || !statSync(full).isDirectory() || existsSync(runPaths(full).results)) {
      expanded.push(path);
      continue;
    }
    const runs = (await readdir(full, { withFileTypes: true }))
      .filter((entry) => entry.isDirectory() && existsSync(runPaths(join(full, entry.name)).results))
      .map((entry) => join(path, entry.name))
      .sort();
    expanded.push(...(runs.length > 0 ? runs : [path]));
  }
  return expanded;
}

/** Unique labels: the run directory's (or file's) name, numbered when two are the same. */
export function labelRuns(runs: readonly LoadedRun[]): RunData[] {
  const seen = new Map<string, number>();
  return runs.map(({ name, ...run }) => {
    const count = (seen.get(name) ?? 0) + 1;
    seen.set(name, count);
    return { label: count > 1 ? `${name} (${count})` : name, ...run };
  });
}

async function readHead(file: string, bytes: number): Promise<string> {
  const handle = await open(file, "r");
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead).toString("utf8");
  } finally {
    await handle.close();
  }
}

interface PlanJson {
  format?: string;
  spec?: string;
  name?: string;
  description?: string;
  specHash?: string;
  vars?: Record<string, number>;
  targets?: PlanLike["targets"];
  cases?: PlanCase[];
  expect?: PlannedExpect[];
  report?: PlanLike["report"];
  workloads?: Record<string, { description?: string; rounds?: PlannedRounds }>;
}

/** The plan of a plan.json (compile writes one into every output and run directory). */
async function readPlan(dir: string): Promise<PlanLike | undefined> {
  const json = (await readRunJson(dir, "plan")) as PlanJson | undefined;
  if (!json || !Array.isArray(json.cases)) return undefined;
  return {
    name: json.spec ?? json.name ?? "benchspec",
    ...(typeof json.description === "string" && { description: json.description }),
    ...(json.specHash && { specHash: json.specHash }),
    vars: json.vars ?? {},
    targets: json.targets ?? {},
    cases: json.cases.map((c) => ({
      id: c.id,
      workload: c.workload,
      target: c.target,
      engine: c.engine,
      op: c.op,
      params: c.params ?? {},
    })),
    expect: json.expect ?? [],
    report: json.report ?? {},
    ...(json.workloads && { workloads: json.workloads }),
  };
}

/** The rows of `file` into `acc` (several threads for a large file); notes about skipped lines. */
async function streamRows(
  file: string,
  acc: RunModel,
  notes: string[],
  options: LoadOptions,
  meanwhile?: Promise<void>,
): Promise<RowsPass> {
  // Something else to read (the series) while threads parse the rows; its error comes after theirs.
  const [rows, other] = await Promise.allSettled([scanRowsThreaded(file, acc, options), meanwhile]);
  if (rows.status === "rejected") throw rows.reason;
  const { pass, scan } = rows.value;
  const stats = scanStats(file, scan);
  if (other.status === "rejected") throw other.reason;
  if (options.strict) strictRows(file, scan, pass);
  if (pass.invalid > 0)
    notes.push(
      `${basename(file)}: ${pass.invalid} line(s) are not result rows and were skipped (first: line ${pass.firstInvalid})`,
    );
  if (stats.skipped > 0) notes.push(`${basename(file)}: ${stats.skipped} non-JSON line(s) skipped`);
  if (stats.tornTail)
    notes.push(`${basename(file)}: the last line was cut off (an interrupted run) and was skipped`);
  return pass;
}

function strictRows(file: string, scan: NdjsonScan, pass: RowsPass): void {
  const fail = (message: string) => {
    throw new BenchspecError("invalid-input", `${file}${message}`);
  };
  if (scan.skipped > 0)
    fail(
      `:${scan.firstSkipped}: not a JSON row (${scan.skipped} such line(s): binary data such as NUL bytes, or text)`,
    );
  if (pass.invalid > 0)
    fail(`:${pass.firstInvalid}: JSON that is not a result row (${pass.invalid} such line(s))`);
  if (scan.broken) fail(": the last line is cut off (the file is truncated)");
  if (pass.hashes.size > 1)
    fail(`: rows of ${pass.hashes.size} different specs (hashes ${[...pass.hashes].join(", ")})`);
}

async function streamSeries(file: string, acc: RunModel) {
  if (acc.options.series === false || !existsSync(file)) return;
  await readNdjson(file, (value) => {
    const point = value as TimeseriesRow;
    if (typeof point.case !== "string" || typeof point.t !== "number") return;
    acc.addPoint(point);
  });
}

async function loadRunDir(dir: string, options: LoadOptions): Promise<LoadedRun> {
  const notes: string[] = [];
  const paths = runPaths(dir);
  const plan = await readPlan(dir);
  const acc = new RunModel(plan ?? { cases: [] }, { series: options.series });
  // Series points and rows are apart in the model: the series is read while threads parse the rows.
  const seriesRead = streamSeries(paths.timeseries, acc);
  const rows = await streamRows(paths.results, acc, notes, options, seriesRead);
  const steady = await steadyFromRaw(paths.raw, rows.steadyRows, acc);
  return runDirData(dir, acc, plan ?? rows.derived.plan(), !plan, steady, notes);
}

/**
 * A run directory whose rows and series are already in `model` (merge folds them in as it writes them):
 * its report without reading them back. Its plan.json is the plan (merge copies one); a merged run has no
 * fio outputs of its own (raw/), so no steady-state windows from them.
 */
export async function loadRunDirOfModel(dir: string, model: RunModel): Promise<LoadedRun> {
  const plan = await readPlan(dir);
  if (!plan) throw new BenchspecError("invalid-input", `${dir}: no ${RUN_FILES.plan.name}`);
  return runDirData(dir, model, plan, false, [], []);
}

async function runDirData(
  dir: string,
  acc: RunModel,
  plan: PlanLike,
  planDerived: boolean,
  steady: SteadyWindow[],
  notes: string[],
): Promise<LoadedRun> {
  const paths = runPaths(dir);
  const state = await findRunState(dir);
  const provenance = await readRunJson(dir, "provenance");
  const { cases, expect, series, rounds } = acc.finish(plan.expect, nicLimits(plan));
  if (state?.status && state.status !== "complete")
    notes.push(`the run is ${state.status}: some cases may be missing`);
  // What `benchspec merge` noted: cases some host lacks, hosts that did not run together.
  notes.push(...((provenance ?? state)?.merged?.notes ?? []));
  return {
    name: basename(dir),
    path: dir,
    kind: "run",
    plan,
    planDerived,
    ...(provenance && { provenance }),
    ...(state && { state }),
    rows: rowCounts(acc),
    cases,
    expect,
    series,
    steady,
    ...(Object.keys(rounds).length > 0 && { rounds }),
    // Read later, and only for the cases whose time series are drawn.
    ...(existsSync(paths.telemetry) &&
      statSync(paths.telemetry).size > 0 && {
        telemetry: { file: paths.telemetry },
      }),
    notes,
  };
}

async function loadResultsFile(file: string, options: LoadOptions): Promise<LoadedRun> {
  const notes: string[] = [];
  // A plan.json beside the file (compile writes one next to the shell script) is used if it is the same spec.
  const siblingPlan = await readPlan(dirname(file));
  const acc = new RunModel(siblingPlan ?? { cases: [] }, { series: options.series });
  const rows = await streamRows(file, acc, notes, options);
  const hashes = rows.hashes;
  const usePlan =
    siblingPlan &&
    hashes.size === 1 &&
    siblingPlan.specHash !== undefined &&
    hashes.has(siblingPlan.specHash);
  let run = acc;
  if (siblingPlan && !usePlan) {
    // The plan.json beside the file is another spec's: aggregate again without its cases.
    run = new RunModel({ cases: [] }, { series: options.series });
    await streamRows(file, run, [], options);
  }
  // A compiled script's time series, kept beside its rows (BENCHSPEC_TIMESERIES=timeseries.ndjson).
  await streamSeries(join(dirname(file), RUN_FILES.timeseries.name), run);
  const plan = usePlan ? siblingPlan : rows.derived.plan();
  if (!usePlan)
    notes.push(
      `no plan.json of this spec beside ${basename(file)}: the spec's title, description, limits, charts and expectations are not known here, only what the rows say. Compile writes plan.json next to benchspec.sh: keep the script's output there (./benchspec.sh > results.ndjson) and report that file`,
    );
  const { cases, expect, series, rounds } = run.finish(plan.expect, nicLimits(plan));
  const name =
    basename(file) === RUN_FILES.results.name
      ? basename(dirname(file))
      : basename(file).replace(/\.(nd)?json$/, "");
  return {
    name,
    path: file,
    kind: "results",
    plan,
    planDerived: !usePlan,
    rows: rowCounts(run),
    cases,
    expect,
    series,
    steady: [],
    ...(Object.keys(rounds).length > 0 && { rounds }),
    notes,
  };
}

/** fio's JSON is parsed whole: a larger file is refused rather than exhausting memory. */
const FIO_JSON_MAX_BYTES = 1024 ** 3;

async function loadFio(files: string[]): Promise<LoadedRun> {
  for (const file of files) {
    const { size } = statSync(file);
    if (size > FIO_JSON_MAX_BYTES) {
      throw new BenchspecError(
        "invalid-input",
        `${file}: fio JSON output of ${(size / 1024 ** 3).toFixed(1)} GiB; it is read whole, up to 1 GiB (split the jobs into several fio runs)`,
      );
    }
  }
  const texts = await Promise.all(
    files.map(async (file) => ({ name: basename(file), text: await readFile(file, "utf8") })),
  );
  const imported = (() => {
    try {
      return importFioOutputs(
        texts,
        files.length === 1 ? basename(files[0]!).replace(/\.json$/, "") : "fio-import",
      );
    } catch (error) {
      throw new BenchspecError("invalid-input", (error as Error).message, { cause: error });
    }
  })();
  const derived = new DerivedPlan();
  const acc = new RunModel();
  for (const row of imported.rows) {
    derived.add(row);
    acc.addRow(row);
  }
  for (const point of imported.timeseries) acc.addPoint(point);
  const plan = derived.plan();
  const { cases, expect, series } = acc.finish(plan.expect, nicLimits(plan));
  return {
    name: files.length === 1 ? basename(files[0]!) : `${files.length} fio outputs`,
    path: files.join(", "),
    kind: "fio" as InputKind,
    plan,
    planDerived: true,
    rows: rowCounts(acc),
    cases,
    expect,
    series,
    steady: imported.steady,
    notes: [],
  };
}

function rowCounts(acc: RunModel): RunData["rows"] {
  return {
    total: acc.rowsTotal,
    measured: acc.rowsTotal - acc.rowsWarmup,
    warmup: acc.rowsWarmup,
    failed: acc.rowsFailed,
    sources: [...acc.sources].sort(),
  };
}

/**
 * fio's steady-state detection, from the raw json+ outputs of a run: the window is the last `duration`
 * seconds before fio stopped the job. Repetitions without a time series get fio's own steady-state samples
 * (one per second of the window) as their series.
 */
async function steadyFromRaw(
  rawDir: string,
  rows: readonly SteadyRow[],
  acc: RunModel,
): Promise<SteadyWindow[]> {
  if (rows.length === 0 || !existsSync(rawDir)) return [];
  const available = new Set(await readdir(rawDir));
  const windows: SteadyWindow[] = [];
  const measuredSeries = new Set(rows.map((row) => row.case).filter((id) => acc.hasSeries(id)));
  for (const row of rows) {
    const file = `${row.case}.r${row.repetition}.json`;
    if (!available.has(file)) continue;
    let job:
      | {
          jobname: string;
          job_runtime?: number;
          steadystate?: {
            ss: string;
            attained: number;
            duration?: number;
            data?: { iops?: number[]; bw?: number[] };
          };
        }
      | undefined;
    try {
      const output = parseFioJson(await readFile(join(rawDir, file), "utf8"));
      job = output.jobs.find((j) => j.jobname === row.case) as typeof job;
    } catch {
      continue;
    }
    const ss = job?.steadystate;
    if (!ss || typeof ss.duration !== "number") continue;
    const end = (job!.job_runtime !== undefined ? job!.job_runtime / 1000 : row.seconds) + row.ramp;
    const start = Math.max(0, end - ss.duration);
    windows.push({
      case: row.case,
      repetition: row.repetition,
      start,
      end,
      attained: ss.attained === 1,
      criterion: ss.ss,
    });
    if (!measuredSeries.has(row.case)) {
      const iops = ss.data?.iops ?? [];
      const bw = ss.data?.bw ?? [];
      const samples = Math.max(iops.length, bw.length);
      for (let i = 0; i < samples; i += 1) {
        acc.addPoint({
          case: row.case,
          repetition: row.repetition,
          t: start + ((i + 1) * (end - start)) / samples,
          throughput: bw[i] ?? 0,
          iops: iops[i] ?? 0,
        });
      }
    }
  }
  return windows;
}

/** A run from rows already in memory (tests, programmatic use): the same aggregation as the loaders. */
export function runFromRows(
  label: string,
  plan: PlanLike,
  rows: Iterable<RowLike>,
  extra: {
    series?: Iterable<TimeseriesRow>;
    steady?: SteadyWindow[];
    telemetry?: readonly TelemetryRow[];
    provenance?: Provenance;
    state?: RunState;
  } = {},
): RunData {
  const acc = new RunModel(plan);
  for (const row of rows) acc.addRow(row);
  for (const point of extra.series ?? []) acc.addPoint(point);
  const { cases, expect, series, rounds } = acc.finish(plan.expect, nicLimits(plan));
  return {
    label,
    path: label,
    kind: "results",
    plan,
    planDerived: false,
    ...(extra.provenance && { provenance: extra.provenance }),
    ...(extra.state && { state: extra.state }),
    rows: rowCounts(acc),
    cases,
    expect,
    series,
    steady: extra.steady ?? [],
    ...(Object.keys(rounds).length > 0 && { rounds }),
    ...(extra.telemetry && { telemetry: { rows: extra.telemetry } }),
    notes: [],
  };
}
