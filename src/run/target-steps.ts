/**
 * The steps a workload takes on a target besides its repetitions, in this order:
 *   purge         once per (workload, target), before its first case there that runs (the target kind's purge)
 *   precondition  once per (workload, target), after the purge (the engine's precondition)
 *   idle          before each repetition of every case, warm-ups too: nothing runs meanwhile
 * On --resume the first case of a workload that still runs purges and preconditions again: the device's state
 * from the interrupted run is not known. A failed purge or preconditioning fails every case of the workload
 * on that target (their repetitions fail with it): they would measure a target in an unknown state.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Case } from "../plan/types.js";
import type { OpenCase } from "../execution/case-steps.js";

/** What the purge and preconditioning of each (workload, target) came to this run: undefined when done well. */
export type TargetStepsDone = Map<string, unknown>;

const stepsKey = (c: Case) => `${c.workload}\0${c.target}`;

/**
 * Runs the workload's purge and preconditioning on the case's target unless they ran already this run; a
 * failure (now or earlier) becomes the case's own, so its repetitions fail with it.
 */
export async function beforeCase(
  open: OpenCase,
  c: Case,
  done: TargetStepsDone,
  say: (message: string) => void,
): Promise<void> {
  const key = stepsKey(c);
  if (!done.has(key)) done.set(key, await runSteps(open, c, say));
  const failure = done.get(key);
  if (failure !== undefined && open.failure === undefined) open.failure = failure;
}

async function runSteps(open: OpenCase, c: Case, say: (message: string) => void): Promise<unknown> {
  const { ctx, place } = open;
  if (open.failure !== undefined || !ctx || !place) return undefined;
  try {
    if (c.params.purge) {
      if (!ctx.target.purge) throw new Error(`target ${c.target} cannot be purged`);
      say(`${c.workload} on ${c.target}: purge: ${await ctx.target.purge(place, ctx.signal)}`);
    }
    if (c.params.precondition && open.executor.precondition) {
      const { write, passes } = c.params.precondition;
      say(`${c.workload} on ${c.target}: preconditioning (${passes} ${write} write pass(es))`);
      await open.executor.precondition(c, ctx);
    }
    return undefined;
  } catch (error) {
    return error;
  }
}

/** The case's `idle` before a repetition; ends early on Ctrl-C (the repetition is then not run). */
export async function idleBefore(c: Case, signal: AbortSignal): Promise<void> {
  const seconds = c.params.idle ?? 0;
  if (seconds <= 0) return;
  await sleep(seconds * 1000, undefined, { signal }).catch(() => {});
}
