/**
 * A case over several targets at once (`target: { together: [...] }`), on this machine, written down once:
 *   1. the case opened on every target as if it were that target's alone (the target prepared with its
 *      safety check, the case's place, the engine's prepare), each with its own raw directory
 *   2. per repetition: every target's repetition armed (its tool's processes started and held), then all
 *      released at one instant; their measurements merged into one row (results/merge-hosts.ts), each
 *      target's own numbers kept in the row's `targets`; the host sampled once over them all
 *   3. the case closed on every target, also after a failure or Ctrl-C
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { ArmedRepetition, Measurement } from "../engines/types.js";
import { onTarget, type Case, type Plan } from "../plan/types.js";
import { mergeTargetMeasurements } from "../results/merge-hosts.js";
import { recordLeftover, type RunPaths } from "../results/run-dir.js";
import { failedMeasurement } from "../engines/measurement.js";
import { rootCode } from "../platform/errors.js";
import { prepareTarget, type PreparedTarget } from "../targets/index.js";
import {
  armRepetition,
  closeCase,
  DEAD_TARGET_FINISH_TIMEOUT_MS,
  FINISH_TIMEOUT_MS,
  openCase,
  type OpenCase,
  type OpenOptions,
  sampled,
  targetsOf,
  writesToTarget,
} from "../execution/case-steps.js";
import type { RunObserver } from "../execution/observer.js";
import { beforeCase, idleBefore, type TargetStepsDone } from "./target-steps.js";

export interface TogetherContext {
  /** The run's (orchestrate.ts's ExecuteOptions). */
  options: {
    plan: Plan;
    paths: RunPaths;
    runId: string;
    signal: AbortSignal;
    observer: RunObserver;
    env: NodeJS.ProcessEnv;
  };
  /** Targets prepared so far in this run, by name, and those that could not be (with why). */
  prepared: Record<string, PreparedTarget>;
  unusable: Map<string, string>;
  /** Targets that stopped answering in this run, with the case that found out. */
  dead: Map<string, string>;
  /** What each (workload, target)'s purge and preconditioning came to this run (target-steps.ts). */
  stepsDone: TargetStepsDone;
  record(c: Case, repetition: number, warmup: boolean, measurement: Measurement): void;
}

export async function runTogether(
  c: Case,
  steps: readonly { rep: number; warmup: boolean }[],
  ctx: TogetherContext,
): Promise<void> {
  const { plan, paths, signal } = ctx.options;
  const members = targetsOf(c).map((target) => {
    // Each target's raw outputs apart: its engine names them after the case id, which the targets share.
    const rawDir = join(paths.raw, target);
    const options: OpenOptions = {
      target: plan.targets[target]!,
      prepared: ctx.prepared,
      unusable: ctx.unusable,
      runId: ctx.options.runId,
      spec: plan.name,
      writes: plan.cases.some((other) => targetsOf(other).includes(target) && writesToTarget(other)),
      env: ctx.options.env,
      created: (leftover) => recordLeftover(paths.dir, { ...leftover, target }),
      artifactsDir: paths.dir,
      rawDir,
      signal,
    };
    return { target, c: onTarget(c, target), options };
  });
  // Every target prepared (its safety check) before anything touches any of them: one refused drive
  // refuses the case, and no other drive is written meanwhile.
  for (const { target, options } of members) {
    try {
      ctx.prepared[target] ??= await prepareTarget(target, options.target, options);
    } catch (error) {
      const now = Date.now();
      // prepareTarget's message names the target already.
      const why = (error as Error).message;
      for (const { rep, warmup } of steps)
        ctx.record(c, rep, warmup, failedMeasurement(now, now, why, rootCode(error)));
      return;
    }
  }
  // Opened one after the other: an engine may share what it made for the case id (dd's payload source).
  const opened: { target: string; c: Case; open: OpenCase }[] = [];
  for (const member of members) {
    await mkdir(member.options.rawDir, { recursive: true });
    const open = await openCase(member.c, member.options);
    // Each drive's purge and preconditioning, one drive after the other.
    await beforeCase(open, member.c, ctx.stepsDone, (message) => ctx.options.observer.message(message));
    opened.push({ ...member, open });
  }
  for (const { rep, warmup } of steps) {
    if (signal.aborted) break;
    await idleBefore(c, signal);
    if (signal.aborted) break;
    ctx.options.observer.repetitionStart?.(c, rep, warmup);
    const armed: ArmedRepetition[] = [];
    for (const member of opened) {
      const deadSince = ctx.dead.get(member.target);
      const notRun =
        deadSince === undefined
          ? undefined
          : `not run: target ${member.target} stopped answering during ${deadSince}`;
      armed.push(await armRepetition(member.open, member.c, rep, warmup, notRun, false));
    }
    if (signal.aborted) {
      await Promise.all(armed.map((a) => a.disarm()));
      break;
    }
    // One instant for all: each go starts its target's I/O at once.
    let parts: Measurement[] = [];
    const measurement = await sampled(c, async () => {
      parts = await Promise.all(armed.map((a) => a.go()));
      return mergeTargetMeasurements(
        parts.map((m, i) => ({ target: opened[i]!.target, measurement: m })),
        c.params.sample,
      );
    });
    // Cut short by Ctrl-C: not recorded, so --resume runs it again.
    if (signal.aborted) break;
    parts.forEach((m, i) => {
      const { target } = opened[i]!;
      if (m.errorCode === "target-unresponsive" && !ctx.dead.has(target)) ctx.dead.set(target, c.id);
    });
    ctx.record(c, rep, warmup, measurement);
  }
  for (const { target, c: alone, open } of opened) {
    const timeout = ctx.dead.has(target) ? DEAD_TARGET_FINISH_TIMEOUT_MS : FINISH_TIMEOUT_MS;
    for (const problem of await closeCase(open, alone, signal, timeout))
      ctx.options.observer.message(problem);
  }
}
