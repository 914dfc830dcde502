/** The run's console progress: a plain log says a long case is alive; the bar's ETA is never garbled. */
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Case } from "../../src/plan/types.js";
import type { ResultRow } from "../../src/rows/row.js";
import type { CaseSummary } from "../../src/results/summary.js";
import { makeObserver, STILL_RUNNING_EVERY_MS } from "../../src/run/progress.js";

const aCase = { id: "w.disk.read" } as Case;

function capture(tty: boolean) {
  const stream = Object.assign(new PassThrough(), tty ? { isTTY: true, columns: 200 } : {});
  let text = "";
  stream.on("data", (chunk) => (text += String(chunk)));
  return { stream, text: () => text };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe("progress without a terminal", () => {
  it("prints the running case, its last repetition and the time so far every 10 s, until the case ends", async () => {
    const out = capture(false);
    const observer = makeObserver("plain", out.stream, false);
    observer.caseStart(aCase, 2, 5);
    await vi.advanceTimersByTimeAsync(STILL_RUNNING_EVERY_MS - 1);
    expect(out.text()).toBe("");
    await vi.advanceTimersByTimeAsync(1);
    expect(out.text()).toBe("[2/5] w.disk.read  running 10s  (no repetition done yet)\n");
    observer.repetitionDone(aCase, { repetition: 1, warmup: false } as ResultRow);
    await vi.advanceTimersByTimeAsync(STILL_RUNNING_EVERY_MS);
    expect(out.text()).toContain("[2/5] w.disk.read  running 20s  (last done: rep 1)\n");
    observer.stop();
    const before = out.text();
    await vi.advanceTimersByTimeAsync(5 * STILL_RUNNING_EVERY_MS);
    expect(out.text()).toBe(before);
  });
});

describe("the line after each case", () => {
  const stats = (median: number, cv = 0.02) => ({ median, mean: median, cv }) as never;
  const summary = (metrics: object) =>
    ({ repetitions: 3, failed: 0, errors: [], warnings: [], metrics }) as unknown as CaseSummary;
  const lineOf = (metrics: object) => {
    const out = capture(false);
    const observer = makeObserver("plain", out.stream, false);
    observer.caseStart(aCase, 1, 1);
    observer.caseDone(aCase, summary(metrics), false);
    observer.stop();
    return out.text();
  };

  it("leads with the rate moved, then IOPS and the latency percentiles", () => {
    expect(
      lineOf({ throughput: stats(2.5e8), iops: stats(61035), p50: stats(0.00041), p99: stats(0.0123) }),
    ).toBe("[1/1] w.disk.read  3 reps  median 250MB/s  cv 2.0%  61035 IOPS  p50 410µs  p99 12.3ms  ok\n");
  });

  it("gives a case that moves no bytes (stat, list, delete) its operations per second, never 0B/s", () => {
    const line = lineOf({
      throughput: stats(0),
      iops: stats(1234.5, 0.05),
      p50: stats(0.002),
      p99: stats(0.009),
    });
    expect(line).toBe("[1/1] w.disk.read  3 reps  median 1235 ops/s  cv 5.0%  p50 2ms  p99 9ms  ok\n");
    expect(line).not.toContain("B/s");
  });
});

describe("text from hosts and servers on the console", () => {
  it("shows control characters (a host name that would retitle the terminal, clear the screen) instead of sending them", () => {
    const out = capture(false);
    const observer = makeObserver("plain", out.stream, false);
    observer.message("host group g: \u001b]0;pwned\u0007node1\u001b[2J, node2\nsecond line");
    expect(out.text()).toBe("host group g: \\u001b]0;pwned\\u0007node1\\u001b[2J, node2\nsecond line\n");
    expect(out.text()).not.toContain("\u001b");
  });
});

describe("progress on a terminal", () => {
  it("shows an ETA it cannot estimate yet as ?, not LLs", async () => {
    const out = capture(true);
    const observer = makeObserver("tty", out.stream, false);
    observer.caseStart(aCase, 1, 3);
    await vi.advanceTimersByTimeAsync(1000);
    observer.stop();
    expect(out.text()).toContain("ETA ?");
    expect(out.text()).not.toContain("LLs");
  });
});
