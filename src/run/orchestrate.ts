/**
 * The case loop, written down once:
 *   1. find what is missing (all of it, or on --resume what results.ndjson lacks)
 *   2. prepare each target once (fs: an owned subdirectory; block: the safety check)
 *   3. per case: prepare (precondition, files to read), warm-ups, then the missing measured repetitions,
 *      each row appended and flushed as it is measured
 *   4. on abort: stop the running tool (its process group), clean up, report what was measured
 */
import { setMaxListeners } from "node:events";
import { BACKENDS } from "../engines/index.js";
import { failedMeasurement } from "../engines/measurement.js";
import type { ExecContext, Measurement } from "../engines/types.js";
import type { Case, Plan } from "../plan/types.js";
import { appendRow } from "../results/ndjson.js";
import type { ResultRow, TimeseriesRow } from "../results/row.js";
import { readResultRows, recordLeftover, type RunPaths } from "../results/run-dir.js";
import { summarizeCase } from "../results/summary.js";
import { WRITING_OPS } from "../spec/engines.js";
import type { RunObserver } from "./observer.js";
import { prepareTarget, type PreparedTarget } from "../targets/index.js";
import { cleanupSignal } from "../platform/cleanup-bound.js";
import { rootCode } from "../platform/errors.js";
import type { CasePlace } from "../targets/types.js";

export interface ExecuteOptions {
  plan: Plan;
  paths: RunPaths;
  runId: string;
  signal: AbortSignal;
  observer: RunObserver;
  env: NodeJS.ProcessEnv;
}

export interface ExecuteOutcome {
  interrupted: boolean;
  /** Cases whose engine this machine cannot run (e.g. fio not installed). */
  skipped: { case: string; reason: string }[];
  targets: Record<string, PreparedTarget>;
}

const repKey = (caseId: string, repetition: number) => `${caseId}#${repetition}`;

export async function executePlan(options: ExecuteOptions): Promise<ExecuteOutcome> {
  const { plan, paths, signal, observer } = options;
  // Every in-flight request listens to the run's signal; hundreds at once are expected, not a leak.
  setMaxListeners(0, signal);
  const unavailable = new Map<string, string>();
  for (const engine of new Set(plan.cases.map((c) => c.engine))) {
    const reason = await (await BACKENDS[engine].executor()).unavailable?.();
    if (reason) unavailable.set(engine, reason);
  }
  const skipped: { case: string; reason: string }[] = [];
  // A failed repetition is not measured: --resume runs it again.
  const measured = new Set(
    readResultRows(paths)
      .filter((row) => !row.warmup && row.ok)
      .map((row) => repKey(row.case, row.repetition)),
  );
  const targets: Record<string, PreparedTarget> = {};
  const dead = new Map<string, string>();
  try {
    for (const [position, c] of plan.cases.entries()) {
      if (signal.aborted) break;
      const missing = range(c.params.repeat).filter((rep) => !measured.has(repKey(c.id, rep)));
      const reason = unavailable.get(c.engine);
      if (reason) {
        // The machine cannot run this engine: say so loudly, measure nothing, fail nothing.
        skipped.push({ case: c.id, reason });
        observer.message(`skipped ${c.id}: ${reason}`);
        continue;
      }
      observer.caseStart(c, position + 1, plan.cases.length);
      if (missing.length > 0) await runCase(c, missing, targets, dead, options);
      if (signal.aborted) break;
      observer.caseDone(c, summarizeCase(c, readResultRows(paths)), missing.length === 0);
    }
  } finally {
    for (const [name, target] of Object.entries(targets))
      await target.cleanup().catch(reportFailure(observer, `cleanup of target ${name}`));
  }
  return { interrupted: signal.aborted, targets, skipped };
}

async function runCase(
  c: Case,
  missing: number[],
  targets: Record<string, PreparedTarget>,
  /** Targets that stopped answering in this run, with the case that found out: their cases fail at once. */
  dead: Map<string, string>,
  options: ExecuteOptions,
) {
  const { plan, paths, signal } = options;
  const executor = await BACKENDS[c.engine].executor();
  let failure: unknown;
  let place: CasePlace | undefined;
  let ctx: ExecContext | undefined;
  try {
    targets[c.target] ??= await prepareTarget(c.target, plan.targets[c.target]!, {
      runId: options.runId,
      spec: plan.name,
      writes: plan.cases.some((other) => other.target === c.target && writes(other)),
      env: options.env,
      created: (leftover) => recordLeftover(paths.dir, { ...leftover, target: c.target }),
    });
    const target = targets[c.target]!;
    place = await target.enterCase(c.id);
    ctx = {
      location: place.location,
      target,
      runId: options.runId,
      // The run directory holds the compiled artifacts too.
      artifactsDir: paths.dir,
      rawDir: paths.raw,
      signal,
    };
    await executor.prepare?.(c, ctx);
  } catch (error) {
    if (signal.aborted) return;
    failure = error;
  }
  const steps = [
    ...range(c.params.warmup).map((rep) => ({ rep, warmup: true })),
    ...missing.map((rep) => ({ rep, warmup: false })),
  ];
  for (const { rep, warmup } of steps) {
    if (signal.aborted) break;
    const start = Date.now();
    let measurement: Measurement;
    try {
      if (failure !== undefined || !ctx) throw failure;
      const deadSince = dead.get(c.target);
      if (deadSince !== undefined)
        throw new Error(`not run: target ${c.target} stopped answering during ${deadSince}`);
      measurement = await executor.repetition(c, rep, warmup, ctx);
    } catch (error) {
      if (signal.aborted) break;
      measurement = failedMeasurement(start, Date.now(), (error as Error).message, rootCode(error));
    }
    // A repetition Ctrl-C cut short is neither a measurement nor a failure (the object engines return one
    // with the aborted operations as errors): it is not recorded, so --resume runs it again.
    if (signal.aborted) break;
    const { timeseries, errorCode, ...result } = measurement;
    const row: ResultRow = {
      v: 1,
      source: "run",
      spec: plan.name,
      specHash: plan.specHash,
      case: c.id,
      workload: c.workload,
      target: c.target,
      engine: c.engine,
      op: c.op,
      // An autotuned repetition reports the round it chose: the row says which value that was.
      params: result.autotune ? { ...c.params, [result.autotune.param]: result.autotune.chosen } : c.params,
      repetition: rep,
      warmup,
      ...result,
    };
    if (errorCode === "target-unresponsive" && !dead.has(c.target)) dead.set(c.target, c.id);
    appendRow(paths.results, row);
    for (const point of timeseries ?? []) {
      appendRow(paths.timeseries, { case: c.id, repetition: rep, warmup, ...point } satisfies TimeseriesRow);
    }
    options.observer.repetitionDone(c, row);
  }
  if (ctx && executor.finish) {
    // Cleanup must run even after Ctrl-C, so it gets a signal of its own (bounded in time, and shortly after
    // an interrupt).
    const timeoutMs = dead.has(c.target) ? 10_000 : FINISH_TIMEOUT_MS;
    await executor
      .finish(c, { ...ctx, signal: cleanupSignal(signal, timeoutMs) })
      .catch(reportFailure(options.observer, `cleanup of ${c.id}`));
  }
  await place?.leave().catch(reportFailure(options.observer, `cleanup of ${c.id}`));
}

/** A cleanup that fails (a target remounted read-only) is said; the run still ends with its results. */
const reportFailure = (observer: RunObserver, what: string) => (error: Error) =>
  observer.message(`${what} failed: ${error.message}`);

const FINISH_TIMEOUT_MS = 120_000;
const writes = (c: Case) => WRITING_OPS.has(c.op) || c.params.precondition !== undefined;
const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
