/**
 * The three steps of one case on one machine, shared by the local runner (orchestrate.ts) and by a worker on
 * a client host (hosts/worker.ts): open (the target prepared once, the case's place, the engine's prepare),
 * measure one repetition (never throws: a failure is a failed measurement), close (the engine's finish and
 * the place left, also after a failure or Ctrl-C, bounded in time).
 */
import { loadEngine } from "../engines/index.js";
import { tune, withTuned, type TuneRule } from "../engines/autotune.js";
import { failedMeasurement } from "../engines/measurement.js";
import { autotuneRounds } from "../emit/sdk-format.js";
import type { ArmedRepetition, ExecContext, Executor, HostShare, Measurement } from "../engines/types.js";
import { targetsOf, type Case } from "../plan/types.js";
import { cleanupSignal } from "../platform/cleanup-bound.js";
import { BenchspecError, rootCode } from "../platform/errors.js";
import type { Target } from "../spec/schema.js";
import { targetWriter } from "../spec/engines.js";
import { prepareTarget, type PreparedTarget } from "../targets/index.js";
import { HostSampler } from "../telemetry/sampler.js";
import { summarizeTelemetry } from "../telemetry/summary.js";
import type { CasePlace, PrepareOptions } from "../targets/types.js";

export interface OpenOptions extends Omit<PrepareOptions, "writes" | "name"> {
  target: Target;
  /** Whether any case of the run writes to this target (prepare checks consent once, for all of them). */
  writes: boolean;
  /** Targets prepared so far on this machine, by name: each is prepared once per run. */
  prepared: Record<string, PreparedTarget>;
  /**
   * Targets that could not be prepared in this run, with why: not tried again by each later case (a frozen
   * server would cost every case its timeout); --resume tries again.
   */
  unusable: Map<string, string>;
  artifactsDir: string;
  rawDir: string;
  signal: AbortSignal;
  hostShare?: HostShare;
}

export interface OpenCase {
  executor: Executor;
  ctx?: ExecContext;
  place?: CasePlace;
  /** Why the case cannot run (its repetitions fail with it); undefined when it was opened. */
  failure?: unknown;
}

export async function openCase(c: Case, options: OpenOptions): Promise<OpenCase> {
  const executor = await (await loadEngine(c.engine)).executor();
  const open: OpenCase = { executor };
  try {
    const known = options.unusable.get(c.target);
    if (known !== undefined) throw new BenchspecError("target-setup", known);
    options.prepared[c.target] ??= await prepareTarget(c.target, options.target, options).catch(
      (error: unknown) => {
        // Cut off by Ctrl-C, the target is not judged: --resume prepares it again.
        if (!options.signal.aborted)
          options.unusable.set(
            c.target,
            `${(error as Error).message} (found preparing case ${c.id}; not tried again)`,
          );
        throw error;
      },
    );
    const target = options.prepared[c.target]!;
    open.place = await target.enterCase(c.id);
    open.ctx = {
      location: open.place.location,
      target,
      runId: options.runId,
      artifactsDir: options.artifactsDir,
      rawDir: options.rawDir,
      signal: options.signal,
      created: options.created,
      ...(options.hostShare && { hostShare: options.hostShare }),
    };
    await executor.prepare?.(c, open.ctx);
  } catch (error) {
    open.failure = error;
  }
  return open;
}

/**
 * One repetition made ready to start (see Executor): never throws; a failure, also the case's own from open,
 * is an armed repetition whose `go` yields a failed measurement naming it.
 */
export async function armRepetition(
  open: OpenCase,
  c: Case,
  repetition: number,
  warmup: boolean,
  /** Set when the runner already knows the repetition cannot work (its target stopped answering). */
  notRun?: string,
  /** Whether its go samples the host (a case over several targets samples once around all of theirs). */
  sampleHost = true,
): Promise<ArmedRepetition> {
  const start = Date.now();
  const failed = (error: unknown): ArmedRepetition => ({
    go: async () => failedMeasurement(start, Date.now(), (error as Error).message, rootCode(error)),
    disarm: async () => {},
  });
  try {
    if (open.failure !== undefined || !open.ctx) throw open.failure;
    if (notRun !== undefined) throw new Error(notRun);
    const { executor } = open;
    const ctx = open.ctx;
    const armOne = async (tuned: Case): Promise<ArmedRepetition> =>
      executor.arm
        ? await executor.arm(tuned, repetition, warmup, ctx)
        : { go: () => executor.repetition(tuned, repetition, warmup, ctx), disarm: async () => {} };
    const rule = c.params.autotune && !executor.tunes ? tuneRule(c) : undefined;
    // An engine that does not tune itself: each round is armed and measured at its value (autotune is
    // refused on host groups, so no other host waits for these rounds).
    const armed: ArmedRepetition = rule
      ? {
          go: () =>
            tune(
              rule,
              async (value) => (await armOne({ ...c, params: withTuned(c.params, rule.param, value) })).go(),
              ctx.signal,
            ),
          disarm: async () => {},
        }
      : await armOne(c);
    const go = () => armed.go().catch((error: unknown) => failed(error).go());
    return {
      go: sampleHost ? () => sampled(c, go) : go,
      disarm: () => armed.disarm(),
    };
  } catch (error) {
    return failed(error);
  }
}

/** The autotune rule of a case, for engines whose rounds are repetitions of their own. */
function tuneRule(c: Case): TuneRule {
  const tune = c.params.autotune!;
  return { ...tune, ramp: autotuneRounds(tune.start, tune.factor, tune.max) };
}

/** A repetition's go with the host sampled meanwhile: its telemetry over the measured window, and the samples. */
export async function sampled(c: Case, go: () => Promise<Measurement>): Promise<Measurement> {
  const sampler = new HostSampler({ intervalMs: telemetryIntervalMs(c) });
  sampler.start();
  const measurement = await go();
  const samples = sampler.stop();
  const window = { start: Date.parse(measurement.start), end: Date.parse(measurement.end) };
  // A repetition too short to overlap a sample (or failed before it measured) is summed over all of them.
  const telemetry = summarizeTelemetry(samples, window) ?? summarizeTelemetry(samples);
  return { ...measurement, ...(telemetry && { telemetry, samples }) };
}

/** The case's `sample` interval (1 s when unset), never under 100 ms: reading /proc has its cost. */
const telemetryIntervalMs = (c: Case) => Math.max(100, (c.params.sample ?? 1) * 1000);

/** One repetition started as soon as it is armed (a run on this machine alone). */
export async function measureRepetition(
  open: OpenCase,
  c: Case,
  repetition: number,
  warmup: boolean,
  notRun?: string,
): Promise<Measurement> {
  return (await armRepetition(open, c, repetition, warmup, notRun)).go();
}

/** The engine's finish and the place left; returns what failed, for the runner to say. */
export async function closeCase(
  open: OpenCase,
  c: Case,
  interrupt: AbortSignal,
  timeoutMs: number,
): Promise<string[]> {
  const problems: string[] = [];
  if (open.ctx && open.executor.finish) {
    // Cleanup must run even after Ctrl-C, so it gets a signal of its own (bounded in time, and shortly after
    // an interrupt).
    await open.executor
      .finish(c, { ...open.ctx, signal: cleanupSignal(interrupt, timeoutMs) })
      .catch((error: Error) => problems.push(`cleanup of ${c.id} failed: ${error.message}`));
  }
  await open.place
    ?.leave()
    .catch((error: Error) => problems.push(`cleanup of ${c.id} failed: ${error.message}`));
  return problems;
}

/** How long a case's cleanup may take (shorter when its target stopped answering). */
export const FINISH_TIMEOUT_MS = 120_000;
export const DEAD_TARGET_FINISH_TIMEOUT_MS = 10_000;

/** Whether the case writes to its target (a block device's consent is checked for those). */
export { targetsOf };

export const writesToTarget = (c: Case) => targetWriter(c.op, c.params) !== undefined;
