/**
 * The load generator both object engines share, modelled on warp: `concurrency` workers take the next
 * operation of an ordered list until it is empty (or, time-based, until the duration is over); every
 * operation's start, end, time to first byte, bytes and error are kept, and the repetition's numbers are
 * computed from them: throughput and IOPS over the repetition's time (first start to last end), the same
 * over the window in which all workers were busy when it is long enough to mean something, latency
 * percentiles (and the histograms rows of several hosts merge by), a time series, and what the client
 * itself cost (CPU, event-loop utilization).
 */
import { STATUS_CODES } from "node:http";
import type { z } from "zod";
import { setImmediate, setTimeout } from "node:timers/promises";
import { performance, type EventLoopUtilization } from "node:perf_hooks";
import { INDEX_PLACEHOLDER, type autotune as autotuneSchema } from "../../emit/sdk-format.js";
import { tune as autotune } from "../autotune.js";
import { BenchspecError, rootCode, type ErrorCode } from "../../platform/errors.js";
import { cleanupSignal } from "../../platform/cleanup-bound.js";
import { failedMeasurement } from "../measurement.js";
import type { ArmedRepetition, HostShare, Measurement } from "../types.js";
import { maxOf } from "../../rows/stats.js";
import { isSizeDistribution, sizeAt, sizeClassOf } from "../../rows/sizes.js";
import { measure, type LoadResult, type OpRecord } from "./measure.js";
import { dueOffsets, hostSchedule, type LoadSchedule } from "./schedule.js";

type SdkAutotune = z.output<typeof autotuneSchema>;

/** Progress checkpoints of one operation are at least this far apart (a 10 s upload keeps ≤ 2,000). */
const PROGRESS_STEP_MS = 5;

/** What an operation tells the load generator while it runs. */
export interface OpMarks {
  firstByte(): void;
  /** Payload bytes that just moved (sent or received). */
  moved(bytes: number): void;
}

/** An operation of the expanded list: the batch entry and the index that fills its `{i}` patterns. */
export interface Indexed<O> {
  op: O;
  index: number;
  pass: number;
}

/**
 * The n-th operation of the expanded list: batches (`from`, `count`) in order, pass after pass, so that
 * workers in several threads can share one list through a shared counter. Undefined past the last pass.
 */
export function itemAt<O extends { from?: number; count?: number }>(
  ops: readonly O[],
  n: number,
  passes: number,
  firstPass: number,
  perPass = operationsPerPass(ops),
): Indexed<O> | undefined {
  if (perPass === 0 || n >= perPass * passes) return undefined;
  let rest = n % perPass;
  for (const op of ops) {
    const count = op.count ?? 1;
    if (rest < count) return { op, index: (op.from ?? 0) + rest, pass: firstPass + Math.floor(n / perPass) };
    rest -= count;
  }
  return undefined;
}

/** How many operations one pass over the list has (callers in a loop count once). */
export const operationsPerPass = (ops: readonly { count?: number }[]) =>
  ops.reduce((sum, op) => sum + (op.count ?? 1), 0);

/** Fills `{i}` in a key/seed/ref pattern. */
export const fill = (pattern: string, index: number) => pattern.replaceAll(INDEX_PLACEHOLDER, String(index));

/** Runs one operation; resolves with the bytes it moved. */
export type Execute<O> = (
  item: Indexed<O>,
  worker: number,
  mark: OpMarks,
  signal: AbortSignal,
) => Promise<number>;

export interface RunLoadOptions {
  concurrency: number;
  /** Seconds: keep going over the list (pass 0, 1, …) until this much time has passed. */
  duration?: number;
  /** The pass number of the first pass (autotune round k uses pass k, so its data differs). */
  firstPass?: number;
  /** Open loop: each operation starts when it is due (or when a worker frees up, if later). */
  rate?: LoadSchedule;
  signal: AbortSignal;
}

/**
 * What workers in several threads share: slot 0 is the next operation's number, slot 1 is set once an
 * operation failed. In one thread it is simply a local array.
 */
export type SharedCursor = Int32Array;
export const newCursor = (shared = false): SharedCursor =>
  new Int32Array(shared ? new SharedArrayBuffer(8) : new ArrayBuffer(8));

export interface LoadShare {
  cursor: SharedCursor;
  /** This thread's workers' ids: first, first + stride, … (unique across threads). */
  firstWorker: number;
  workerStride: number;
  /** Epoch milliseconds (performance.timeOrigin based) at which a time-based run stops. */
  deadline?: number;
  /** Epoch milliseconds from which an open loop's operations are due (each at its offset, schedule.ts). */
  scheduleStart?: number;
}

/** Runs a load with workers in this thread; `share` lets threads split one list (see threads.ts). */
export async function runLoad<O extends { from?: number; count?: number }>(
  ops: readonly O[],
  execute: Execute<O>,
  options: RunLoadOptions,
  share: LoadShare = {
    cursor: newCursor(),
    firstWorker: 0,
    workerStride: 1,
    ...(options.duration && { deadline: epochNow() + options.duration * 1000 }),
    ...(options.rate && { scheduleStart: epochNow() }),
  },
): Promise<LoadResult> {
  const passes = options.duration ? Number.MAX_SAFE_INTEGER : 1;
  const firstPass = options.firstPass ?? 0;
  const { cursor } = share;
  const perPass = operationsPerPass(ops);
  const records: OpRecord[] = [];
  const epochStart = Date.now();
  const startedAt = performance.now();
  const deadline = share.deadline === undefined ? Infinity : share.deadline - performance.timeOrigin;
  const dueOffset = options.rate && dueOffsets(options.rate);
  const scheduleStart = (share.scheduleStart ?? epochNow()) - performance.timeOrigin;
  const cpu = process.cpuUsage();
  const elu: EventLoopUtilization = performance.eventLoopUtilization();
  const worker = async (id: number) => {
    for (;;) {
      // After the first error the repetition has failed: stop issuing operations (a dead server must not
      // be asked thousands more times before the run moves on).
      // An open loop runs every operation due within the duration, however late a worker comes to it.
      if (Atomics.load(cursor, 1) !== 0 || options.signal.aborted) return;
      if (!dueOffset && performance.now() >= deadline) return;
      const n = Atomics.add(cursor, 0, 1);
      const next = itemAt(ops, n, passes, firstPass, perPass);
      if (!next) return;
      const due = dueOffset && scheduleStart + dueOffset(n);
      if (due !== undefined) {
        // Time-based: the operations due within the duration, each started however late it comes.
        if (due >= deadline) return;
        if (!(await waitUntil(due, options.signal))) return;
      }
      const { op: kind, size } = next.op as { op?: unknown; size?: unknown };
      const record: OpRecord = {
        worker: id,
        start: performance.now(),
        end: 0,
        bytes: 0,
        ...(due !== undefined && { due }),
        ...(typeof kind === "string" && { kind }),
        ...(isSizeDistribution(size) && { sizeClass: sizeClassOf(size, sizeAt(size, next.index)) }),
      };
      let moved = 0;
      let checkpoint = record.start;
      const marks: OpMarks = {
        firstByte: () => (record.firstByte ??= performance.now()),
        moved: (bytes) => {
          const now = performance.now();
          // Nothing moved before the first bytes (a slow first byte is not spread over the wait).
          if (moved === 0) (record.progress ??= []).push(now, 0);
          moved += bytes;
          if (now - checkpoint < PROGRESS_STEP_MS) return;
          checkpoint = now;
          record.progress!.push(now, moved);
        },
      };
      try {
        record.bytes = await execute(next, id, marks, options.signal);
      } catch (error) {
        record.error = describeError(error);
        const code = rootCode(error);
        if (code) record.errorCode = code;
        Atomics.store(cursor, 1, 1);
      }
      record.end = performance.now();
      records.push(record);
    }
  };
  await Promise.all(
    Array.from({ length: options.concurrency }, (_, i) => worker(share.firstWorker + i * share.workerStride)),
  );
  const used = process.cpuUsage(cpu);
  return {
    records,
    startedAt,
    epochStart,
    cpuSeconds: (used.user + used.system) / 1e6,
    elu: performance.eventLoopUtilization(elu).utilization,
    threads: 1,
  };
}

/**
 * Waits until performance.now() reaches `at`, never less: a timer of the wait rounded up to whole
 * milliseconds (libuv's unit), then — when the loop's cached clock made it fire early — turns of the loop
 * for what is left, which is rarely anything (spinning the whole last millisecond cost 0.3 CPU-s/s at
 * 300 operations a second). False when the signal aborted it.
 */
async function waitUntil(at: number, signal: AbortSignal): Promise<boolean> {
  for (let wait = at - performance.now(); wait > 0; wait = at - performance.now()) {
    const waited =
      wait >= 0.05 ? setTimeout(Math.ceil(wait), true, { signal }) : setImmediate(true, { signal });
    if (!(await waited.catch(() => false))) return false;
  }
  return true;
}

/** Milliseconds since the epoch on the monotonic clock every thread of the process shares. */
export const epochNow = () => performance.timeOrigin + performance.now();

/** Runs the operations of a group: in this thread, or split across worker threads (threads.ts). */
export interface LoadDriver<O> {
  run(ops: readonly O[], options: RunLoadOptions): Promise<LoadResult>;
  /**
   * Readies what the operations use (connections, the payload generator) before a repetition, outside its
   * timed window. In the repetition, not at prepare: a target that stopped answering is never asked.
   */
  warm?(signal: AbortSignal): Promise<void>;
}

export const inThisThread = <O extends { from?: number; count?: number }>(
  execute: Execute<O>,
  warm?: (signal: AbortSignal) => Promise<void>,
): LoadDriver<O> => ({ run: (ops, options) => runLoad(ops, execute, options), ...(warm && { warm }) });

export function describeError(error: unknown): string {
  // A benchspec error that marks another (a timeout) reads as that one; its code is not for the row.
  if (error instanceof BenchspecError && error.cause !== undefined) return describeError(error.cause);
  const e = error as {
    name?: string;
    message?: string;
    $metadata?: { httpStatusCode?: number };
    code?: string;
  };
  const code = e.$metadata?.httpStatusCode;
  const status = code ? ` (HTTP ${code} ${STATUS_CODES[code] ?? ""})`.replace(" )", ")") : "";
  // The SDK's deserialization errors span lines and point at SDK internals; a server going down answers
  // with a non-XML body (MinIO's 503 while stopping), which is all the user needs to know.
  const message = /Deserialization error/.test(e.message ?? "")
    ? "the server's reply was not S3 XML"
    : (e.message ?? String(error)).replace(/\s+/g, " ").trim();
  const name =
    e.name && e.name !== "Error" && !/Deserialization error/.test(e.message ?? "") ? `${e.name}: ` : "";
  const errno = error instanceof BenchspecError ? undefined : e.code;
  return `${name}${message}${errno ? ` [${errno}]` : ""}${status}`;
}

export interface MeasuredGroup<O> {
  concurrency: number;
  autotune?: SdkAutotune;
  duration?: number;
  sample?: number;
  rate?: LoadSchedule;
  ops: readonly O[];
}

/** A repetition plan: unmeasured setup, then the measured group. */
export interface RepetitionPlan<O> {
  setup?: { concurrency: number; ops: readonly O[] };
  measured: MeasuredGroup<O>;
}

/** Every operation of a repetition: its setup's, then its measured group's. */
export const opsOf = <O>(r: RepetitionPlan<O>): readonly O[] => [...(r.setup?.ops ?? []), ...r.measured.ops];

/** The most workers a repetition runs at once: its concurrency, autotune's rounds, its setup's. */
export const maxConcurrency = (r: RepetitionPlan<unknown>) => {
  const tune = r.measured.autotune;
  const tunesConcurrency = tune !== undefined && (tune.param ?? "concurrency") === "concurrency";
  return maxOf([r.measured.concurrency, ...(tunesConcurrency ? tune.rounds : []), r.setup?.concurrency ?? 1]);
};

/**
 * Runs a measured group; with autotune, one round per value of its concurrency or rate by the autotune's
 * rule (engines/autotune.ts), each round its own data pass.
 */
export async function runMeasured<O>(
  group: MeasuredGroup<O>,
  driver: LoadDriver<O>,
  signal: AbortSignal,
): Promise<Measurement> {
  const once = async (concurrency: number, rate: LoadSchedule | undefined, firstPass: number) =>
    measure(
      await driver.run(group.ops, {
        concurrency,
        duration: group.duration,
        firstPass,
        ...(rate && { rate }),
        signal,
      }),
      group.sample,
      rate?.opsPerSecond,
    );
  const tune = group.autotune;
  if (!tune) return once(group.concurrency, group.rate, 0);
  const param = tune.param ?? "concurrency";
  return autotune(
    { ...tune, param, ramp: tune.rounds },
    (value, round) =>
      param === "rate"
        ? once(group.concurrency, { ...group.rate!, opsPerSecond: value }, round)
        : once(value, group.rate, round),
    signal,
  );
}

/**
 * One repetition of a compiled call sequence, the same for every object engine, armed: the unmeasured setup
 * group runs now; go runs the measured group, then cleanup — always, also after a failure or Ctrl-C (with
 * its own time limit). Disarmed (the start never came), it cleans up what the setup wrote.
 */
export async function armCallSequence<O>(
  plan: RepetitionPlan<O>,
  driver: LoadDriver<O>,
  signal: AbortSignal,
  cleanup: (signal: AbortSignal) => Promise<void>,
  share?: HostShare,
): Promise<ArmedRepetition> {
  const { rate } = plan.measured;
  const measured = rate && share ? { ...plan.measured, rate: hostSchedule(rate, share) } : plan.measured;
  const started = Date.now();
  let measurement: Measurement | undefined;
  let failure: unknown;
  try {
    await driver.warm?.(signal);
    if (plan.setup) {
      const setup = await driver.run(plan.setup.ops, { concurrency: plan.setup.concurrency, signal });
      const failed = setup.records.find((r) => r.error);
      if (failed)
        measurement = failedMeasurement(
          started,
          Date.now(),
          `setup failed: ${failed.error}`,
          failed.errorCode,
        );
    }
  } catch (error) {
    failure = error;
  }
  return {
    async go() {
      try {
        if (failure === undefined && !measurement) {
          if (signal.aborted) throw new Error("interrupted");
          measurement = await runMeasured(measured, driver, signal);
        }
      } catch (error) {
        failure = error;
      }
      return cleanedUp(measurement, failure, cleanup, signal);
    },
    async disarm() {
      await cleanup(cleanupSignal(signal, CLEANUP_TIMEOUT_MS));
    },
  };
}

/** The repetition's measurement once its cleanup ran; data left behind fails it. */
async function cleanedUp(
  measurement: Measurement | undefined,
  failure: unknown,
  cleanup: (signal: AbortSignal) => Promise<void>,
  signal: AbortSignal,
): Promise<Measurement> {
  let cleanupError: string | undefined;
  let cleanupCode: ErrorCode | undefined;
  // A server that stopped answering will not answer the cleanup either: try briefly, then say so.
  const unresponsive = [rootCode(failure), measurement?.errorCode].includes("target-unresponsive");
  try {
    await cleanup(cleanupSignal(signal, unresponsive ? UNRESPONSIVE_CLEANUP_MS : CLEANUP_TIMEOUT_MS));
  } catch (error) {
    cleanupError = `cleanup failed: ${(error as Error).message}${unresponsive ? " (the server had stopped answering; what this repetition wrote may remain under its prefix)" : ""}`;
    cleanupCode = rootCode(error);
  }
  if (failure !== undefined || !measurement) throw failure;
  if (!cleanupError) return measurement;
  // Data left behind fails the repetition, but the measurement's own story stays in the message.
  const errorCode = measurement.errorCode ?? cleanupCode;
  return {
    ...measurement,
    ok: false,
    error: measurement.error ? `${measurement.error}; ${cleanupError}` : cleanupError,
    ...(errorCode && { errorCode }),
  };
}

const CLEANUP_TIMEOUT_MS = 120_000;
const UNRESPONSIVE_CLEANUP_MS = 10_000;
