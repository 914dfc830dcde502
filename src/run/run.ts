/**
 * A run end to end, and its resumption:
 *   1. validate the spec (the same pipeline as `validate`)
 *   2. create the run directory: compiled artifacts, the spec as run, run.json, provenance.json
 *   3. execute the missing cases (orchestrate.ts), rows appended as measured
 *   4. summary.json with statistics and expect results; run.json says complete or partial
 */
import { randomBytes } from "node:crypto";
import { readdir } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { compilePlan } from "../compile/compile.js";
import { loadEngines } from "../engines/index.js";
import { makeDirectory, writeArtifacts } from "../compile/output.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { hasErrors } from "../diagnostics/diagnostic.js";
import type { Plan } from "../plan/types.js";
import {
  lockRunDir,
  readRunJson,
  readRunState,
  reopenRunFiles,
  RUN_FORMAT,
  runPaths,
  startRunFiles,
  writeRunJson,
  writeRunStateSync,
  type Provenance,
  type RunState,
  type RunSummaryDocument,
} from "../results/run-dir.js";
import { RunModel } from "../results/model/accumulator.js";
import { nicLimits, summaryOf } from "../results/summary.js";
import { loadSpec } from "../engines/language.js";
import { envRefsIn } from "../spec/strings.js";
import type { RunObserver } from "../execution/observer.js";
import { cleanRunDir, describeLeftover } from "./clean.js";
import { executePlan } from "./orchestrate.js";
import { gitInfo, hostInfo, libraryVersions, toolVersions } from "./provenance.js";
import { removeOwnedTargetsSync, targetKind } from "../targets/index.js";
import { BenchspecError, hasCode } from "../platform/errors.js";
import { redactUrls } from "../platform/redact.js";
import { describeFsError } from "../platform/fs-errors.js";
import { targetsOf } from "../execution/case-steps.js";

export interface RunRequest {
  specFile?: string;
  sets: string[];
  hosts: string[];
  /** `--only`: these workloads of the spec only. */
  only: string[];
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
      summary: RunSummaryDocument;
      interrupted: boolean;
      /** report.html was written; false when it could not be (the run then fails). */
      reportWritten: boolean;
    };

/** The run whose run.json says "running" right now: what abandonRunSync marks partial. */
let active: { dir: string; state: RunState } | undefined;

/**
 * The last resort of a second Ctrl-C, just before process.exit: synchronously marks the run partial (so
 * --resume can finish it) and removes the benchspec-owned directories on fs targets. Nothing else.
 */
export function abandonRunSync(): void {
  if (active) {
    try {
      writeRunStateSync(active.dir, { ...active.state, status: "partial", end: new Date().toISOString() });
    } catch {
      // exiting anyway: a run.json left "running" is still resumable
    }
    active = undefined;
  }
  removeOwnedTargetsSync();
}

export async function run(request: RunRequest): Promise<RunResult> {
  if (request.resume && request.specFile) {
    throw new BenchspecError(
      "usage",
      `--resume takes the spec recorded in ${request.resume}; name no spec with it`,
    );
  }
  if (request.resume && (request.sets.length > 0 || request.hosts.length > 0 || request.only.length > 0)) {
    throw new BenchspecError(
      "usage",
      `--resume takes the settings recorded in ${request.resume}; --set, --hosts and --only cannot change them`,
    );
  }
  if (request.resume && request.out) {
    throw new BenchspecError(
      "usage",
      `--resume continues in ${request.resume}; --out cannot be used with it`,
    );
  }
  const dir = request.resume ? resolve(request.cwd, request.resume) : undefined;
  const previous = dir ? await readRunState(dir) : undefined;
  if (dir && (await readRunJson(dir, "provenance"))?.merged) {
    throw new BenchspecError(
      "usage",
      `${dir} was made by benchspec merge from runs on other hosts; resume each host's own run there and merge them again`,
    );
  }
  const specFile = previous ? runPaths(dir!).spec : request.specFile;
  if (!specFile) throw new BenchspecError("usage", "name a spec to run, or --resume a run directory");
  const sets = previous?.sets ?? request.sets;
  const hosts = previous ? (previous.hosts ?? []) : request.hosts;
  const only = previous ? (previous.only ?? []) : request.only;
  const loaded = await loadSpec(specFile, { sets, hosts, only });
  if (hasErrors(loaded.diagnostics) || !loaded.plan)
    return { kind: "invalid", diagnostics: loaded.diagnostics };
  const plan = loaded.plan;
  if (previous && previous.specHash !== plan.specHash) {
    throw new BenchspecError("usage", `${dir}/spec.yaml changed since the run started; it cannot be resumed`);
  }
  checkEnvRefs(plan, request.env);

  const runDir = dir ?? (await newRunDir(request, plan));
  // Nothing in the directory changes before the lock is held; it is released however the run ends.
  const release = lockRunDir(runDir, (message) => request.observer.message(message));
  return runLocked({ request, runDir, plan, loaded, previous, specFile, sets, hosts, only }).finally(release);
}

async function runLocked({
  request,
  runDir,
  plan,
  loaded,
  previous,
  specFile,
  sets,
  hosts,
  only,
}: {
  request: RunRequest;
  runDir: string;
  plan: Plan;
  loaded: Awaited<ReturnType<typeof loadSpec>>;
  previous: RunState | undefined;
  specFile: string;
  sets: string[];
  hosts: string[];
  only: string[];
}): Promise<RunResult> {
  const state: RunState = previous ?? {
    format: RUN_FORMAT,
    status: "running",
    runId: `${timestamp(new Date())}-${randomBytes(3).toString("hex")}`,
    specFile: resolve(request.cwd, specFile),
    specHash: plan.specHash,
    sets,
    ...(hosts.length > 0 && { hosts }),
    ...(only.length > 0 && { only }),
    start: new Date().toISOString(),
  };
  if (!previous) {
    await writeArtifacts(
      runDir,
      (await compilePlan(plan, ["fio", "shell", "sdk"], request.version)).artifacts,
    ).catch((error: unknown) => {
      throw hasCode(error, "unwritable-output")
        ? new BenchspecError("run-setup", error.message, { cause: error })
        : error;
    });
    await startRunFiles(runDir, loaded.source!.text);
  } else {
    await reopenRunFiles(runDir);
    // What a killed attempt left (directories, servers' data, keys in a store) goes before anything new.
    const cleaned = await cleanRunDir(runDir, request.env);
    for (const leftover of cleaned.removed)
      request.observer.message(`removed what an earlier attempt left: ${describeLeftover(leftover)}`);
    for (const { leftover, reason } of cleaned.remaining)
      request.observer.message(
        `could not remove what an earlier attempt left: ${describeLeftover(leftover)} (${reason}; benchspec clean ${runDir} retries)`,
      );
  }
  await writeRunJson(runDir, "state", { ...state, status: "running", end: undefined });
  active = { dir: runDir, state };

  const { outcome, summary } = await measure(plan, state, runDir, request).catch((error: unknown) => {
    // The run directory stopped taking writes (deleted, remounted read-only): run.json, where it can still
    // be written, says partial, and the run ends with what happened instead of an internal error.
    abandonRunSync();
    const { code, path } = error as NodeJS.ErrnoException;
    if (code === undefined || error instanceof BenchspecError) throw error;
    throw new BenchspecError(
      "run-directory",
      `the run stopped: cannot write ${path ?? runDir}: ${describeFsError(error)}`,
      { cause: error },
    );
  });
  active = undefined;
  const reportWritten = await writeReport(runDir, request);
  return {
    kind: "done",
    dir: runDir,
    diagnostics: loaded.diagnostics,
    summary,
    interrupted: outcome.interrupted,
    reportWritten,
  };
}

/** Runs the missing cases and writes the run's documents (summary, provenance, run.json). */
async function measure(plan: Plan, state: RunState, runDir: string, request: RunRequest) {
  const paths = runPaths(runDir);
  const provenance = await collectProvenance(plan, state, request);
  // Each attempt gets its own owned directories on fs targets, so a crashed attempt's leftovers never collide.
  provenance.runId = `${state.runId}-${randomBytes(2).toString("hex")}`;
  const model = new RunModel(plan);
  const outcome = await executePlan({
    plan,
    model,
    paths,
    runId: provenance.runId,
    signal: request.signal,
    observer: request.observer,
    env: request.env,
    version: request.version,
  });
  for (const [name, target] of Object.entries(outcome.targets)) {
    provenance.targets[name] = { location: redactUrls(target.location), ...target.details() };
  }
  const end = new Date().toISOString();
  const summary = { ...summaryOf(model.finish(plan.expect, nicLimits(plan))), skipped: outcome.skipped };
  await writeRunJson(runDir, "summary", summary);
  await writeRunJson(runDir, "provenance", { ...provenance, end });
  await writeRunJson(runDir, "state", {
    ...state,
    status: outcome.interrupted ? "partial" : "complete",
    end,
  });
  return { outcome, summary };
}

/**
 * Every `${env:NAME}` of the targets the cases use must be set before the first case: a missing one found
 * when its target is prepared would fail every case on it after hours of others (and --resume would rerun
 * nothing).
 */
function checkEnvRefs(plan: Plan, env: NodeJS.ProcessEnv): void {
  const missing = [...new Set(plan.cases.flatMap(targetsOf))]
    .flatMap((name) => envRefsIn(plan.targets[name], `targets.${name}`))
    .filter((ref) => env[ref.name] === undefined)
    .map((ref) => `${ref.name} (used at ${ref.path})`);
  if (missing.length > 0)
    throw new BenchspecError(
      "invalid-input",
      `environment variable${missing.length > 1 ? "s" : ""} not set: ${missing.join(", ")}; nothing was run`,
    );
}

/**
 * The run's report.html, written whole or not at all. A report that cannot be drawn or written (a full
 * disk) never loses the run's results, but the run says so and fails.
 */
async function writeReport(runDir: string, request: RunRequest): Promise<boolean> {
  try {
    // Loaded here: the charting libraries take a while to import and only a run needs them.
    const { writeRunReport } = await import("../report/index.js");
    await writeRunReport(runDir, request.version);
    return true;
  } catch (error) {
    request.observer.message(
      `could not write report.html: ${(error as Error).message} (benchspec report ${runDir} retries)`,
    );
    return false;
  }
}

async function newRunDir(request: RunRequest, plan: Plan): Promise<string> {
  const dir = request.out
    ? resolve(request.cwd, request.out)
    : join(request.cwd, "runs", `${timestamp(new Date())}-${plan.name}`);
  const option = request.out ? "--out: " : "";
  const entries = await readdir(dir).catch(() => undefined);
  if (entries && entries.length > 0)
    throw new BenchspecError("usage", `${option}${dir} is not empty; runs never overwrite anything`);
  try {
    makeDirectory(dir);
  } catch (error) {
    if (hasCode(error, "unwritable-output"))
      throw new BenchspecError("usage", `${option}${error.message}`, { cause: error });
    throw error;
  }
  return dir;
}

async function collectProvenance(plan: Plan, state: RunState, request: RunRequest): Promise<Provenance> {
  const engines = await loadEngines(plan.cases.map((c) => c.engine));
  const tools = [
    ...Object.values(engines).flatMap((engine) => engine.tools),
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
      ...(await libraryVersions()),
      ...(await toolVersions(tools)),
    },
    targets: {},
    start: state.start,
  };
}

/** 2026-11-22T07-58-01: sortable, and safe in a file name. */
const timestamp = (date: Date) => date.toISOString().slice(0, 19).replaceAll(":", "-");
