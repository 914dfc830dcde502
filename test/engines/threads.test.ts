import { performance } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { LoadThreads } from "../../src/engines/load/threads.js";

const MODULE = new URL("../fixtures/threads/toy-thread.ts", import.meta.url).href;
const OPS = [{ from: 0, count: 100 }];

describe("LoadThreads: one load over several worker threads", () => {
  it("runs every operation exactly once across the threads, records on this thread's clock", async () => {
    const threads = await LoadThreads.start(2, { module: MODULE, input: { delayMs: 2 } });
    try {
      const before = performance.now();
      const result = await threads.run(OPS, { concurrency: 5, signal: new AbortController().signal });
      const after = performance.now();
      expect(result.threads).toBe(2);
      expect(result.records.map((r) => r.bytes).sort((a, b) => a - b)).toEqual([...Array(100).keys()]);
      expect(result.records.every((r) => !r.error)).toBe(true);
      // 5 workers over 2 threads: ids 0..4, each used, none twice across threads.
      expect([...new Set(result.records.map((r) => r.worker))].sort()).toEqual([0, 1, 2, 3, 4]);
      for (const r of result.records) {
        expect(r.start).toBeGreaterThanOrEqual(before);
        expect(r.end).toBeLessThanOrEqual(after);
        expect(r.end).toBeGreaterThanOrEqual(r.start);
      }
      // A second load on the same threads starts a new list.
      const again = await threads.run(OPS, { concurrency: 3, signal: new AbortController().signal });
      expect(again.records).toHaveLength(100);
    } finally {
      await threads.close();
    }
  }, 60_000);

  it("time-based: the threads share one deadline and go over the list pass after pass", async () => {
    const threads = await LoadThreads.start(2, { module: MODULE, input: { delayMs: 5 } });
    try {
      const result = await threads.run([{ from: 0, count: 10 }], {
        concurrency: 4,
        duration: 0.5,
        signal: new AbortController().signal,
      });
      // More operations than one pass of 10: the list was taken again, by both threads.
      expect(result.records.length).toBeGreaterThan(10);
      expect(new Set(result.records.map((r) => r.worker % 2))).toEqual(new Set([0, 1]));
    } finally {
      await threads.close();
    }
  }, 60_000);

  it("Ctrl-C reaches every thread: the load ends early", async () => {
    const threads = await LoadThreads.start(2, { module: MODULE, input: { delayMs: 20 } });
    try {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      const result = await threads.run([{ from: 0, count: 10_000 }], {
        concurrency: 4,
        signal: controller.signal,
      });
      expect(result.records.length).toBeLessThan(10_000);
    } finally {
      await threads.close();
    }
  }, 60_000);

  it("a thread that dies fails its load, and every later load at once instead of hanging", async () => {
    const threads = await LoadThreads.start(2, { module: MODULE, input: { delayMs: 1, crashAt: 5 } });
    try {
      const signal = new AbortController().signal;
      await expect(threads.run(OPS, { concurrency: 4, signal })).rejects.toThrow(
        /load thread exited \(code 3\)/,
      );
      await expect(threads.run(OPS, { concurrency: 4, signal })).rejects.toThrow(/load thread exited/);
    } finally {
      await threads.close();
    }
  }, 60_000);
});
