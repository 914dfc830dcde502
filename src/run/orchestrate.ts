/**
 * The case loop, written down once:
 *   1. find what is missing (all of it, or on --resume what results.ndjson lacks)
 *   2. prepare each target once (fs: an owned subdirectory; block: the safety check)
 *   3. per case: prepare (files to read); before a workload's first case on a target, its purge and
 *      preconditioning (target-steps.ts); warm-ups, then the missing measured repetitions, each after the
 *      case's idle, each row appended and flushed as it is measured; a workload in rounds runs as a whole,
 *      target by target (rounds.ts); a case on client hosts: hosts/coordinator.ts; over several targets at once: together.ts
 *   4. on abort: stop the running tool (its process group), clean up, report what was measured
 */
import { setMaxListeners } from "node:events";
import { loadEngine } from "../engines/index.js";
import { withTuned } from "../engines/autotune.js";
import type { Measurement } from "../engines/types.js";
import { caseFields, targetRounds, type Case, type Plan } from "../plan/types.js";
import { appendRow } from "../results/ndjson.js";
import type { ResultRow, TimeseriesRow } from "../rows/row.js";
import type { RunModel } from "../results/model/accumulator.js";
import { recordLeftover, type RunPaths } from "../results/run-dir.js";
import { readStandingRows } from "../results/standing-rows.js";
import { caseSummary, nicLimits } from "../results/summary.js";
import type { TelemetryRow } from "../rows/telemetry.js";
import type { RunObserver } from "../execution/observer.js";
import { HostCoordinator } from "../hosts/coordinator.js";
import type { PreparedTarget } from "../targets/index.js";
import {
  closeCase,
  DEAD_TARGET_FINISH_TIMEOUT_MS,
  FINISH_TIMEOUT_MS,
  measureRepetition,
  openCase,
  targetsOf,
  writesToTarget,
} from "../execution/case-steps.js";
import { runRounds, type CaseRunner } from "./rounds.js";
import { runTogether } from "./together.js";
import { beforeCase, idleBefore, type TargetStepsDone } from "./target-steps.js";

export interface ExecuteOptions {
  plan: Plan;
  paths: RunPaths;
  runId: string;
  signal: AbortSignal;
  observer: RunObserver;
  env: NodeJS.ProcessEnv;
  /** This benchspec's version: workers on client hosts must run the same. */
  version: string;
  /** The run model (made with the plan): fed every row as it is appended, and the rows of earlier attempts. */
  model: RunModel;
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
  // Cases on client hosts run there: each host says what it cannot run.
  for (const engine of new Set(plan.cases.filter((c) => c.params.hosts === undefined).map((c) => c.engine))) {
    const reason = await (await (await loadEngine(engine)).executor()).unavailable?.();
    if (reason) unavailable.set(engine, reason);
  }
  const skipped: { case: string; reason: string }[] = [];
  // The rows of earlier attempts (--resume), read once: from here on the model is fed as rows are appended.
  const earlier = await readStandingRows(paths.results);
  for (const row of earlier) options.model.addRow(row);
  // A failed repetition is not measured: --resume runs it again.
  const measured = new Set(
    earlier.filter((row) => !row.warmup && row.ok).map((row) => repKey(row.case, row.repetition)),
  );
  const nics = nicLimits(plan);
  const figures = (c: Case) => caseSummary(options.model.figures(c.id, nics)!);
  const targets: Record<string, PreparedTarget> = {};
  const dead = new Map<string, string>();
  const unusable = new Map<string, string>();
  const stepsDone: TargetStepsDone = new Map();
  const record = (c: Case, rep: number, warmup: boolean, measurement: Measurement) =>
    recordRepetition(c, rep, warmup, measurement, options);
  const hosts = new HostCoordinator({ ...options, record });
  try {
    const inRounds = new Set<string>();
    for (const [position, c] of plan.cases.entries()) {
      if (signal.aborted) break;
      const planned = plan.workloads[c.workload]?.rounds;
      if (planned) {
        // A workload in rounds runs at its first case on each target: that target's cases once per round.
        const loop = `${c.workload}\0${c.target}`;
        if (inRounds.has(loop)) continue;
        inRounds.add(loop);
        const rounds = targetRounds(planned).find((r) => r.target === c.target)!;
        await runRounds(c.workload, rounds, {
          cases: plan.cases.filter((other) => other.workload === c.workload && other.target === c.target),
          runner: localRunner(targets, unusable, dead, stepsDone, options),
          rows: () => options.model.roundRowsOf(c.workload, c.target),
          figures,
          total: plan.cases.length,
          signal,
          observer,
        });
        continue;
      }
      const missing = range(c.params.repeat).filter((rep) => !measured.has(repKey(c.id, rep)));
      const reason = c.params.hosts === undefined ? unavailable.get(c.engine) : undefined;
      if (reason) {
        // The machine cannot run this engine: say so loudly, measure nothing, fail nothing.
        skipped.push({ case: c.id, reason });
        observer.message(`skipped ${c.id}: ${reason}`);
        continue;
      }
      observer.caseStart(c, position + 1, plan.cases.length);
      if (missing.length > 0) {
        if (c.params.hosts !== undefined) await hosts.runCase(c, steps(c, missing));
        else if (c.together)
          await runTogether(c, steps(c, missing), {
            options,
            prepared: targets,
            unusable,
            dead,
            stepsDone,
            record,
          });
        else await runCase(c, missing, targets, unusable, dead, stepsDone, options);
      }
      if (signal.aborted) break;
      observer.caseDone(c, figures(c), missing.length === 0);
    }
  } finally {
    await hosts.close();
    for (const [name, target] of Object.entries(targets))
      await target.cleanup().catch(reportFailure(observer, `cleanup of target ${name}`));
  }
  return { interrupted: signal.aborted, targets, skipped };
}

async function runCase(
  c: Case,
  missing: number[],
  targets: Record<string, PreparedTarget>,
  /** Targets that could not be prepared in this run, with why: their cases fail at once. */
  unusable: Map<string, string>,
  /** Targets that stopped answering in this run, with the case that found out: their cases fail at once. */
  dead: Map<string, string>,
  stepsDone: TargetStepsDone,
  options: ExecuteOptions,
) {
  const runner = localRunner(targets, unusable, dead, stepsDone, options);
  const open = await runner.open(c);
  for (const { rep, warmup } of steps(c, missing)) {
    if (options.signal.aborted) break;
    await runner.repetition(open, c, rep, warmup);
  }
  await runner.close(open, c);
}

/** Opening, measuring and closing cases on this machine, for the case loop and for rounds. */
function localRunner(
  targets: Record<string, PreparedTarget>,
  unusable: Map<string, string>,
  dead: Map<string, string>,
  stepsDone: TargetStepsDone,
  options: ExecuteOptions,
): CaseRunner {
  const { plan, paths, signal } = options;
  return {
    open: async (c) => {
      const open = await openCase(c, {
        target: plan.targets[c.target]!,
        prepared: targets,
        unusable,
        runId: options.runId,
        spec: plan.name,
        writes: plan.cases.some((other) => targetsOf(other).includes(c.target) && writesToTarget(other)),
        env: options.env,
        created: (leftover) => recordLeftover(paths.dir, { ...leftover, target: c.target }),
        // The run directory holds the compiled artifacts too.
        artifactsDir: paths.dir,
        rawDir: paths.raw,
        signal,
      });
      await beforeCase(open, c, stepsDone, (message) => options.observer.message(message));
      return open;
    },
    async repetition(open, c, rep, warmup) {
      await idleBefore(c, signal);
      // Ctrl-C during the idle: the repetition is not run.
      if (signal.aborted) return;
      options.observer.repetitionStart?.(c, rep, warmup);
      const deadSince = dead.get(c.target);
      const measurement = await measureRepetition(
        open,
        c,
        rep,
        warmup,
        deadSince === undefined
          ? undefined
          : `not run: target ${c.target} stopped answering during ${deadSince}`,
      );
      // A repetition Ctrl-C cut short is neither a measurement nor a failure (the object engines return one
      // with the aborted operations as errors): it is not recorded, so --resume runs it again.
      if (signal.aborted) return;
      if (measurement.errorCode === "target-unresponsive" && !dead.has(c.target)) dead.set(c.target, c.id);
      recordRepetition(c, rep, warmup, measurement, options);
    },
    async close(open, c) {
      const problems = await closeCase(
        open,
        c,
        signal,
        dead.has(c.target) ? DEAD_TARGET_FINISH_TIMEOUT_MS : FINISH_TIMEOUT_MS,
      );
      for (const problem of problems) options.observer.message(problem);
    },
  };
}

/** Warm-ups first, then the measured repetitions still missing. */
export const steps = (c: Case, missing: readonly number[]) => [
  ...range(c.params.warmup).map((rep) => ({ rep, warmup: true })),
  ...missing.map((rep) => ({ rep, warmup: false })),
];

/** Appends a repetition's row (and its time series) to the run directory, and tells the observer. */
export function recordRepetition(
  c: Case,
  rep: number,
  warmup: boolean,
  measurement: Measurement,
  options: Pick<ExecuteOptions, "plan" | "paths" | "observer" | "model">,
): void {
  const { plan, paths } = options;
  // errorCode is for the runner, not the row.
  const { timeseries, samples, errorCode, ...result } = measurement;
  const row: ResultRow = {
    v: 1,
    source: "run",
    spec: plan.name,
    specHash: plan.specHash,
    ...caseFields(c),
    // An autotuned repetition reports the round it chose: the row says which value that was.
    params: result.autotune ? withTuned(c.params, result.autotune.param, result.autotune.chosen) : c.params,
    repetition: rep,
    warmup,
    ...result,
  };
  appendRow(paths.results, row);
  options.model.addRow(row);
  for (const point of timeseries ?? []) {
    appendRow(paths.timeseries, { case: c.id, repetition: rep, warmup, ...point } satisfies TimeseriesRow);
  }
  appendTelemetry(paths, c, rep, warmup, result.start, samples);
  options.observer.repetitionDone(c, row);
}

/**
 * A repetition's telemetry samples, on timeseries.ndjson's clock: seconds from the repetition's start (the
 * earliest host's, on several hosts, whose samples keep their `host`).
 */
function appendTelemetry(
  paths: RunPaths,
  c: Case,
  repetition: number,
  warmup: boolean,
  start: string,
  samples: Measurement["samples"],
): void {
  const origin = Date.parse(start);
  for (const sample of samples ?? []) {
    appendRow(paths.telemetry, {
      case: c.id,
      repetition,
      warmup,
      ...sample,
      t: (sample.t - origin) / 1000,
    } satisfies TelemetryRow);
  }
}

/** A cleanup that fails (a target remounted read-only) is said; the run still ends with its results. */
const reportFailure = (observer: RunObserver, what: string) => (error: Error) =>
  observer.message(`${what} failed: ${error.message}`);

const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
