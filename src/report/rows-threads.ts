/**
 * Result rows parsed on several threads: parsing JSON is most of a report's build time over a million
 * rows. A large results file is cut into byte ranges at line starts, one per core; a thread per range
 * (rows-thread.ts) makes a pass over it (rows.ts) and posts it back as plain data, and the passes are
 * merged in file order — the same aggregates, plan, notes and errors (with the file's line numbers) as one
 * pass over the whole file, which small files still get: a thread costs some 50 ms to start (more from
 * TypeScript source).
 */
import { open, stat } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { nextMessage, startWorker } from "../platform/worker-thread.js";
import type { RunAccumulator } from "./aggregate.js";
import type { PlanCase } from "./model.js";
import type { ByteRange, NdjsonScan } from "./read-ndjson.js";
import { RowsPass, scanRows, type RowsPartial } from "./rows.js";

export interface RowThreadOptions {
  /**
   * Threads for a large results file (default: one per core, each with 16 MB of the file at least); 1: none.
   */
  threads?: number;
  /** The size (bytes) from which a results file is parsed on several threads (default 64 MB). */
  threadsFrom?: number;
}

export const THREADS_FROM = 64 * 1024 * 1024;
const MIN_RANGE = 16 * 1024 * 1024;

/** Sent to a thread (workerData). */
export interface RangeTask {
  file: string;
  range: ByteRange;
  planCases: readonly PlanCase[];
}

/** Posted by a thread: its pass over the range, line numbers counted from the range's start. */
export interface RangeResult {
  partial: RowsPartial;
  scan: NdjsonScan;
}

/**
 * A pass over the rows of `file` into `acc` (made with `planCases`): on several threads if the file is
 * large, else on this one. What it finds is in the scan (a broken line is not thrown); `threads`: how many
 * threads parsed it (0: this one).
 */
export async function readRows(
  file: string,
  acc: RunAccumulator,
  planCases: readonly PlanCase[],
  options: RowThreadOptions = {},
): Promise<{ pass: RowsPass; scan: NdjsonScan; threads: number }> {
  const single = async () => ({ ...(await scanRows(file, acc)), threads: 0 });
  const threads = options.threads ?? availableParallelism();
  if (threads < 2) return single();
  const { size } = await stat(file);
  if (size < (options.threadsFrom ?? THREADS_FROM)) return single();
  // By default no range under 16 MB: a thread's start must stay small next to its work.
  const count =
    options.threads === undefined ? Math.min(threads, Math.max(2, Math.floor(size / MIN_RANGE))) : threads;
  const ranges = await lineRanges(file, size, count);
  if (ranges.length < 2) return single();
  const results = await runThreads(ranges.map((range) => ({ file, range, planCases })));
  // A case outside the plan whose rows disagree on its autotuned parameter: the first row decides.
  if (!acc.canMerge(results.map((r) => r.partial.acc))) return single();
  const pass = new RowsPass(acc);
  return { pass, scan: mergeRanges(results, pass), threads: ranges.length };
}

/**
 * The ranges' passes merged into `pass` in file order, and their scans as one: line numbers are the file's,
 * and a range's broken last line is an error if a later range has a non-blank line.
 */
function mergeRanges(results: readonly RangeResult[], pass: RowsPass): NdjsonScan {
  const scan: NdjsonScan = { rows: 0, skipped: 0, lines: 0, nonBlank: false };
  for (const { partial, scan: part } of results) {
    const offset = scan.lines;
    if (scan.broken && part.nonBlank) {
      scan.error = scan.broken;
      delete scan.broken;
      return scan;
    }
    pass.merge(partial, offset);
    scan.rows += part.rows;
    scan.skipped += part.skipped;
    scan.lines += part.lines;
    scan.nonBlank ||= part.nonBlank;
    if (part.error) {
      scan.error = { line: part.error.line + offset, message: part.error.message };
      return scan;
    }
    if (part.broken) scan.broken = { line: part.broken.line + offset, message: part.broken.message };
  }
  return scan;
}

/**
 * About `count` ranges of equal size, each starting after a "\n" (the first at 0); the last has no end:
 * it is read to the end of the file, as a single pass would (a run may still be writing it).
 */
export async function lineRanges(file: string, size: number, count: number): Promise<ByteRange[]> {
  const starts = [0];
  const handle = await open(file, "r");
  try {
    const buffer = Buffer.alloc(64 * 1024);
    for (let i = 1; i < count; i += 1) {
      let at = Math.max(Math.floor((size * i) / count), starts[starts.length - 1]!);
      let newline = -1;
      while (newline < 0 && at < size) {
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, at);
        if (bytesRead === 0) break;
        const found = buffer.subarray(0, bytesRead).indexOf(10);
        if (found >= 0) newline = at + found;
        else at += bytesRead;
      }
      if (newline < 0 || newline + 1 >= size) break;
      starts.push(newline + 1);
    }
  } finally {
    await handle.close();
  }
  return starts.map((start, i) => (i + 1 < starts.length ? { start, end: starts[i + 1]! } : { start }));
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
