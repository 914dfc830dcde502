import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cleanupSignal, graceAfter, INTERRUPTED_CLEANUP_MS } from "../../src/platform/cleanup-bound.js";

describe("clean-up bounds after an interrupt", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("a grace aborts its time after the interrupt, never before it", () => {
    const interrupt = new AbortController();
    const grace = graceAfter(interrupt.signal, 1_000);
    vi.advanceTimersByTime(60_000);
    expect(grace.aborted, "no interrupt, no end").toBe(false);
    interrupt.abort();
    vi.advanceTimersByTime(999);
    expect(grace.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(grace.aborted).toBe(true);
    expect((grace.reason as Error).message).toBe("given up 1 s after the interrupt");
  });

  it("a grace ends by the clean-up deadline however long it asks for, and leaves the deadline as it is", () => {
    const interrupt = new AbortController();
    const grace = graceAfter(interrupt.signal, 60_000);
    const cleanup = cleanupSignal(interrupt.signal, 120_000);
    const short = graceAfter(interrupt.signal, 500);
    interrupt.abort();
    vi.advanceTimersByTime(500);
    expect([short.aborted, grace.aborted, cleanup.aborted]).toEqual([true, false, false]);
    vi.advanceTimersByTime(INTERRUPTED_CLEANUP_MS - 500);
    expect([grace.aborted, cleanup.aborted]).toEqual([true, true]);
  });
});
