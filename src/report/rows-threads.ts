/**
 * Result rows parsed on several threads: parsing JSON is most of a report's build time over a million
 * rows. A large results file is cut into byte ranges at line starts, one per core; a thread per range
 * (rows-thread.ts) makes a pass over it (rows.ts) and posts it back as plain data (the per-case values as
 * flat typed arrays, transferred: cloning an object per case cost seconds), and the passes are
 * merged in file order — the same aggregates, plan, notes and errors (with the file's line numbers) as one
 * pass over the whole file, which small files still get: a thread costs some 50 ms to start (more from
 * TypeScript source).
 */
import { stat } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { nextMessage, startWorker } from "../platform/worker-thread.js";
import { joinScans, lineRanges, type ByteRange, type NdjsonScan } from "../results/ndjson.js";
import type { ModelOptions, ModelPlan, RunModel } from "../results/model/accumulator.js";
import { RowsPass, scanRows, type RowsPartial } from "./rows.js";

export interface RowThreadOptions {
  /**
   * Threads for a large results file (default: the cores shared among `together`, each with 16 MB of the
   * file at least); 1: none, unless `together`.
   */
  threads?: number;
  /**
   * How many large files are read at once (compare's two runs): the cores are shared among them, and each
   * has a thread of its own at least, so that they are parsed side by side — more threads than cores cost
   * a third more time than one per core.
   */
  together?: number;
  /** The size (bytes) from which a results file is parsed on several threads (default 64 MB). */
  threadsFrom?: number;
}

export const THREADS_FROM = 64 * 1024 * 1024;
const MIN_RANGE = 16 * 1024 * 1024;

/** Sent to a thread (workerData). */
export interface RangeTask {
  file: string;
  range: ByteRange;
  plan: ModelPlan;
  model: ModelOptions;
}

/** Posted by a thread: its pass over the range, line numbers counted from the range's start. */
export interface RangeResult {
  partial: RowsPartial;
  scan: NdjsonScan;
}

/**
 * A pass over the rows of `file` into `acc`: on several threads if the file is
 * large, else on this one. What it finds is in the scan (a broken line is not thrown); `threads`: how many
 * threads parsed it (0: this one).
 */
export async function scanRowsThreaded(
  file: string,
  acc: RunModel,
  options: RowThreadOptions = {},
): Promise<{ pass: RowsPass; scan: NdjsonScan; threads: number }> {
  const single = async () => ({ ...(await scanRows(file, acc)), threads: 0 });
  const together = options.together ?? 1;
  const threads = options.threads ?? Math.max(1, Math.floor(availableParallelism() / together));
  // A thread of its own even alone: the other files are parsed meanwhile.
  const fewest = together > 1 ? 1 : 2;
  if (threads < fewest) return single();
  const { size } = await stat(file);
  if (size < (options.threadsFrom ?? THREADS_FROM)) return single();
  // By default no range under 16 MB: a thread's start must stay small next to its work.
  const count =
    options.threads === undefined
      ? Math.min(threads, Math.max(fewest, Math.floor(size / MIN_RANGE)))
      : threads;
  const ranges = await lineRanges(file, size, count);
  if (ranges.length < fewest) return single();
  const results = await runThreads(
    ranges.map((range) => ({ file, range, plan: acc.plan, model: acc.options })),
  );
  // A case outside the plan whose rows disagree on its autotuned parameter: the first row decides.
  if (!acc.canMerge(results.map((r) => r.partial.acc))) return single();
  const pass = new RowsPass(acc);
  // Merged in file order: the same pass as one over the whole file, with the file's line numbers.
  const scan = joinScans(
    results.map((r) => r.scan),
    (index, lineOffset) => pass.merge(results[index]!.partial, lineOffset),
  );
  return { pass, scan, threads: ranges.length };
}

/** Runs a thread per task; if one fails, the others are stopped. */
async function runThreads(tasks: readonly RangeTask[]): Promise<RangeResult[]> {
  const workers = tasks.map((task) => startWorker(import.meta.url, "rows-thread", task));
  try {
    return await Promise.all(
      workers.map((worker) => nextMessage<RangeResult>(worker, "thread parsing result rows")),
    );
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}
