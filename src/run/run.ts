/**
 * A run end to end, and its resumption:
 *   1. validate the spec (the same pipeline as `validate`)
 *   2. create the run directory: compiled artifacts, the spec as run, run.json, provenance.json
 *   3. execute the missing cases (orchestrate.ts), rows appended as measured
 *   4. summary.json with statistics and expect results; run.json says complete or partial
 */
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { compilePlan } from "../compile/compile.js";
import { BACKENDS } from "../engines/index.js";
import { makeDirectory, OutputDirError, writeArtifacts } from "../compile/output.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { hasErrors } from "../diagnostics/diagnostic.js";
import type { Plan } from "../plan/types.js";
import { readRows, repairTail } from "../results/ndjson.js";
import type { ResultRow } from "../results/row.js";
import { buildSummary, type RunSummary } from "../results/summary.js";
import { loadSpec } from "../plan/load.js";
import type { RunObserver } from "./observer.js";
import { executePlan, type RunPaths } from "./orchestrate.js";
import { gitInfo, hostInfo, libraryVersions, toolVersions, type Provenance } from "./provenance.js";
import { removeOwnedTargetsSync, targetKind } from "../targets/index.js";

export const RUN_FORMAT = "benchspec-run/1";

export interface RunState {
  format: typeof RUN_FORMAT;
  status: "running" | "partial" | "complete";
  runId: string;
  specFile: string;
  specHash: string;
  sets: string[];
  start: string;
  end?: string;
}

export interface RunRequest {
  specFile?: string;
  sets: string[];
  out?: string;
  resume?: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  observer: RunObserver;
  version: string;
}

export type RunResult =
  | { kind: "invalid"; diagnostics: Diagnostic[] }
  | {
      kind: "done";
      dir: string;
      diagnostics: Diagnostic[];
      summary: RunSummary & { skipped: { case: string; reason: string }[] };
      interrupted: boolean;
    };

/** A run that cannot start; exitCode 2 when the request itself is wrong (usage), 1 otherwise. */
export class RunSetupError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
  }
}

const USAGE = 2;

/** The run whose run.json says "running" right now: what abandonRunSync marks partial. */
let active: { file: string; state: RunState } | undefined;

/**
 * The last resort of a second Ctrl-C, just before process.exit: synchronously marks the run partial (so
 * --resume can finish it) and removes the benchspec-owned directories on fs targets. Nothing else.
 */
export function abandonRunSync(): void {
  if (active) {
    try {
      writeFileSync(
        active.file,
        `${JSON.stringify({ ...active.state, status: "partial", end: new Date().toISOString() }, null, 2)}\n`,
      );
    } catch {
      // exiting anyway: a run.json left "running" is still resumable
    }
    active = undefined;
  }
  removeOwnedTargetsSync();
}

export async function run(request: RunRequest): Promise<RunResult> {
  if (request.resume && request.specFile) {
    throw new RunSetupError(
      `--resume takes the spec recorded in ${request.resume}; name no spec with it`,
      USAGE,
    );
  }
  if (request.resume && request.sets.length > 0) {
    throw new RunSetupError(
      `--resume takes the settings recorded in ${request.resume}; --set cannot change them`,
      USAGE,
    );
  }
  if (request.resume && request.out) {
    throw new RunSetupError(`--resume continues in ${request.resume}; --out cannot be used with it`, USAGE);
  }
  const dir = request.resume ? resolve(request.cwd, request.resume) : undefined;
  const previous = dir ? await readState(dir) : undefined;
  const specFile = previous ? join(dir!, "spec.yaml") : request.specFile;
  if (!specFile) throw new RunSetupError("name a spec to run, or --resume a run directory", USAGE);
  const sets = previous?.sets ?? request.sets;
  const loaded = await loadSpec(specFile, { sets });
  if (hasErrors(loaded.diagnostics) || !loaded.plan)
    return { kind: "invalid", diagnostics: loaded.diagnostics };
  const plan = loaded.plan;
  if (previous && previous.specHash !== plan.specHash) {
    throw new RunSetupError(`${dir}/spec.yaml changed since the run started; it cannot be resumed`, USAGE);
  }

  const runDir = dir ?? (await newRunDir(request, plan));
  const paths: RunPaths = {
    dir: runDir,
    results: join(runDir, "results.ndjson"),
    timeseries: join(runDir, "timeseries.ndjson"),
    raw: join(runDir, "raw"),
    artifacts: runDir,
  };
  const state: RunState = previous ?? {
    format: RUN_FORMAT,
    status: "running",
    runId: `${timestamp(new Date())}-${randomBytes(3).toString("hex")}`,
    specFile: resolve(request.cwd, specFile),
    specHash: plan.specHash,
    sets,
    start: new Date().toISOString(),
  };
  if (!previous) {
    await writeArtifacts(runDir, compilePlan(plan, ["fio", "shell", "sdk"], request.version).artifacts).catch(
      (error: unknown) => {
        throw error instanceof OutputDirError ? new RunSetupError(error.message) : error;
      },
    );
    await writeFile(join(runDir, "spec.yaml"), loaded.source!.text);
    await writeFile(paths.results, "");
    await writeFile(paths.timeseries, "");
  } else {
    repairTail(paths.results);
    repairTail(paths.timeseries);
  }
  await mkdir(paths.raw, { recursive: true });
  await writeJson(join(runDir, "run.json"), { ...state, status: "running", end: undefined });
  active = { file: join(runDir, "run.json"), state };

  const provenance = await collectProvenance(plan, state, request);
  // Each attempt gets its own owned directories on fs targets, so a crashed attempt's leftovers never collide.
  provenance.runId = `${state.runId}-${randomBytes(2).toString("hex")}`;
  const outcome = await executePlan({
    plan,
    paths,
    runId: provenance.runId,
    signal: request.signal,
    observer: request.observer,
    env: request.env,
  });
  for (const [name, target] of Object.entries(outcome.targets)) {
    provenance.targets[name] = { location: target.location, ...target.details() };
  }
  const end = new Date().toISOString();
  const summary = { ...buildSummary(plan, readRows<ResultRow>(paths.results)), skipped: outcome.skipped };
  await writeJson(join(runDir, "summary.json"), summary);
  await writeJson(join(runDir, "provenance.json"), { ...provenance, end });
  await writeJson(join(runDir, "run.json"), {
    ...state,
    status: outcome.interrupted ? "partial" : "complete",
    end,
  });
  active = undefined;
  await writeReport(runDir, request.observer);
  return {
    kind: "done",
    dir: runDir,
    diagnostics: loaded.diagnostics,
    summary,
    interrupted: outcome.interrupted,
  };
}

/** The run's report.html; a report that cannot be drawn is reported, never a reason to lose the run. */
async function writeReport(runDir: string, observer: RunObserver): Promise<void> {
  try {
    // Loaded here: the charting libraries take a while to import and only a run needs them.
    const { writeRunReport } = await import("../report/index.js");
    await writeRunReport(runDir);
  } catch (error) {
    observer.message(
      `could not write report.html: ${(error as Error).message} (benchspec report ${runDir} retries)`,
    );
  }
}

async function readState(dir: string): Promise<RunState> {
  try {
    const state = JSON.parse(await readFile(join(dir, "run.json"), "utf8")) as RunState;
    if (state.format !== RUN_FORMAT) throw new Error("not a benchspec run");
    return state;
  } catch (error) {
    throw new RunSetupError(`${dir} is not a benchspec run directory (${(error as Error).message})`, USAGE);
  }
}

async function newRunDir(request: RunRequest, plan: Plan): Promise<string> {
  const dir = request.out
    ? resolve(request.cwd, request.out)
    : join(request.cwd, "runs", `${timestamp(new Date())}-${plan.name}`);
  const option = request.out ? "--out: " : "";
  const entries = await readdir(dir).catch(() => undefined);
  if (entries && entries.length > 0)
    throw new RunSetupError(`${option}${dir} is not empty; runs never overwrite anything`, USAGE);
  try {
    makeDirectory(dir);
  } catch (error) {
    if (error instanceof OutputDirError) throw new RunSetupError(`${option}${error.message}`, USAGE);
    throw error;
  }
  return dir;
}

async function collectProvenance(plan: Plan, state: RunState, request: RunRequest): Promise<Provenance> {
  const engines = [...new Set(plan.cases.map((c) => c.engine))];
  const tools = [
    ...engines.flatMap((e) => BACKENDS[e].tools),
    ...Object.values(plan.targets).flatMap((target) => targetKind(target.kind).launches(target)),
  ];
  const git = await gitInfo(state.specFile);
  return {
    spec: {
      name: plan.name,
      file: basename(state.specFile),
      hash: plan.specHash,
      sets: state.sets,
      ...(git && { git }),
    },
    host: hostInfo(),
    versions: {
      node: process.version,
      benchspec: request.version,
      ...libraryVersions(),
      ...(await toolVersions(tools)),
    },
    targets: {},
    start: state.start,
  };
}

const writeJson = (file: string, value: unknown) => writeFile(file, `${JSON.stringify(value, null, 2)}\n`);

/** 2026-11-22T07-58-01: sortable, and safe in a file name. */
const timestamp = (date: Date) => date.toISOString().slice(0, 19).replaceAll(":", "-");
