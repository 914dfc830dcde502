/**
 * Worker threads for the load generator: one event loop tops out near 1.2 GB/s of HTTP receive (measured
 * by `npm run bench`), so a case can spread its workers over several threads, each with its own
 * connections. The threads share one operation list through a SharedArrayBuffer cursor (load.ts), and their
 * operation records are merged onto the main thread's clock, so a threaded repetition is measured exactly
 * like a single-threaded one.
 * Threads start once per case and serve all its repetitions.
 */
import { availableParallelism } from "node:os";
import { performance } from "node:perf_hooks";
import type { Worker } from "node:worker_threads";
import { marked, type ErrorCode } from "../../platform/errors.js";
import { nextMessage, startWorker } from "../../platform/worker-thread.js";
import { epochNow, newCursor, type LoadDriver, type LoadShare, type RunLoadOptions } from "./load.js";
import type { LoadResult, OpRecord } from "./measure.js";
import { maxOf } from "../../rows/stats.js";

/** Sent to a thread: import `module` and call its `makeThreadExecute(input)`. */
export interface ThreadInit {
  module: string;
  input: unknown;
}

export type ToThread =
  | {
      type: "run";
      id: number;
      ops: readonly unknown[];
      options: Omit<RunLoadOptions, "signal">;
      share: LoadShare;
    }
  | { type: "warm"; id: number }
  | { type: "abort"; id: number }
  | { type: "close" };

export type FromThread =
  | { type: "ready" }
  | { type: "result"; id: number; records: OpRecord[]; elu: number; timeOrigin: number }
  | { type: "warmed"; id: number; error?: string; code?: ErrorCode }
  | { type: "closed" };

/**
 * `auto`: one thread per 8 operations in flight, at most half the cores and never more than 8 — and one
 * thread on a machine of 2 cores or fewer, where the storage (or its server) needs the other core.
 */
export function resolveThreads(
  threads: number | "auto",
  concurrency: number,
  cores = availableParallelism(),
): number {
  if (threads !== "auto") return Math.min(threads, concurrency);
  if (cores <= 2) return 1;
  return Math.max(1, Math.min(Math.ceil(concurrency / 8), Math.floor(cores / 2), 8));
}

export class LoadThreads<O> implements LoadDriver<O> {
  private nextId = 0;

  /** Why a thread is gone, once one is: later loads fail at once instead of waiting for it. */
  private lost: Error | undefined;
  private readonly exited = new Set<Worker>();

  private constructor(private readonly workers: Worker[]) {
    for (const worker of workers) {
      worker.once("error", (error) => (this.lost ??= error));
      worker.once("exit", (code) => {
        this.exited.add(worker);
        this.lost ??= new Error(`a load thread exited (code ${code})`);
      });
    }
  }

  /** Starts `count` threads and waits until each has built its executor. */
  static async start<O>(count: number, init: ThreadInit): Promise<LoadThreads<O>> {
    const workers = Array.from({ length: count }, () => startWorker(import.meta.url, "load-thread", init));
    try {
      await Promise.all(workers.map((worker) => reply(worker, (m) => m.type === "ready")));
    } catch (error) {
      await Promise.allSettled(workers.map((worker) => worker.terminate()));
      throw error;
    }
    return new LoadThreads<O>(workers);
  }

  async run(ops: readonly O[], options: RunLoadOptions): Promise<LoadResult> {
    if (this.lost) throw this.lost;
    const id = this.nextId++;
    const { signal, ...rest } = options;
    const cursor = newCursor(true);
    const deadline = options.duration ? epochNow() + options.duration * 1000 : undefined;
    const scheduleStart = options.rate ? epochNow() : undefined;
    const threads = this.workers.length;
    const epochStart = Date.now();
    const startedAt = performance.now();
    const cpu = process.cpuUsage();
    const active = this.workers
      .map((worker, t) => ({ worker, t, concurrency: share(options.concurrency, threads, t) }))
      .filter(({ concurrency }) => concurrency > 0);
    const abort = () => {
      for (const { worker } of active) worker.postMessage({ type: "abort", id } satisfies ToThread);
    };
    signal.addEventListener("abort", abort, { once: true });
    try {
      const results = await Promise.all(
        active.map(({ worker, t, concurrency }) => {
          const result = reply(worker, (m) => m.type === "result" && m.id === id);
          worker.postMessage({
            type: "run",
            id,
            ops,
            options: { ...rest, concurrency },
            share: {
              cursor,
              firstWorker: t,
              workerStride: threads,
              ...(deadline && { deadline }),
              ...(scheduleStart && { scheduleStart }),
            },
          } satisfies ToThread);
          return result as Promise<Extract<FromThread, { type: "result" }>>;
        }),
      );
      if (signal.aborted) abort();
      const used = process.cpuUsage(cpu);
      // Each thread's performance.now() counts from its own start; move its records onto this thread's clock.
      const records = results.flatMap(({ records, timeOrigin }) => {
        const shift = timeOrigin - performance.timeOrigin;
        return records.map((r) => ({
          ...r,
          start: r.start + shift,
          end: r.end + shift,
          ...(r.firstByte !== undefined && { firstByte: r.firstByte + shift }),
          ...(r.due !== undefined && { due: r.due + shift }),
          ...(r.progress && { progress: r.progress.map((x, i) => (i % 2 === 0 ? x + shift : x)) }),
        }));
      });
      return {
        records,
        startedAt,
        epochStart,
        // process.cpuUsage covers every thread of the process.
        cpuSeconds: (used.user + used.system) / 1e6,
        // The busiest thread decides whether the client was the limit.
        elu: maxOf(results.map((r) => r.elu)),
        threads: active.length,
      };
    } finally {
      signal.removeEventListener("abort", abort);
    }
  }

  /** Each thread's executor readies itself (LoadDriver.warm); the first failure is thrown, code kept. */
  async warm(signal: AbortSignal): Promise<void> {
    if (this.lost) throw this.lost;
    const id = this.nextId++;
    const abort = () => {
      for (const worker of this.workers) worker.postMessage({ type: "abort", id } satisfies ToThread);
    };
    signal.addEventListener("abort", abort, { once: true });
    try {
      const replies = await Promise.all(
        this.workers.map((worker) => {
          const warmed = reply(worker, (m) => m.type === "warmed" && m.id === id);
          worker.postMessage({ type: "warm", id } satisfies ToThread);
          return warmed as Promise<Extract<FromThread, { type: "warmed" }>>;
        }),
      );
      const failed = replies.find((r) => r.error !== undefined);
      if (failed) {
        const error = new Error(failed.error);
        throw failed.code ? marked(failed.code, error) : error;
      }
    } finally {
      signal.removeEventListener("abort", abort);
    }
  }

  /** Lets each thread close its connections, then ends it. */
  async close(): Promise<void> {
    await Promise.allSettled(
      this.workers.map(async (worker) => {
        if (this.exited.has(worker)) return;
        const closed = reply(worker, (m) => m.type === "closed");
        worker.postMessage({ type: "close" } satisfies ToThread);
        await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
        await worker.terminate();
      }),
    );
  }
}

/** Worker t's share of `total` workers over `threads` threads. */
const share = (total: number, threads: number, t: number) =>
  Math.floor(total / threads) + (t < total % threads ? 1 : 0);

/** The first message of a load thread that matches. */
const reply = (worker: Worker, matches: (message: FromThread) => boolean) =>
  nextMessage<FromThread>(worker, "load thread", matches);
