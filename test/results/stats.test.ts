import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { maxOf, median, minOf, summarize } from "../../src/rows/stats.js";

/** The definitions, by sorting: what the selection-based statistics must agree with. */
function sortedMedian(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  return n % 2 ? sorted[(n - 1) / 2]! : (sorted[n / 2 - 1]! + sorted[n / 2]!) / 2;
}

describe("statistics", () => {
  it("median and MAD by selection equal the sorted definitions (odd, even, duplicates, negatives)", () => {
    const values = fc.array(
      fc.oneof(fc.integer({ min: -5, max: 5 }), fc.double({ min: -1e12, max: 1e12, noNaN: true })),
      { minLength: 1, maxLength: 300 },
    );
    fc.assert(
      fc.property(values, (list) => {
        const copy = [...list];
        // "+ 0": -0 and 0 are the same median (a sort and a selection may meet either first).
        const mid = sortedMedian(list);
        expect(median(list) + 0).toBe(mid + 0);
        const stats = summarize(list)!;
        expect(stats.median + 0).toBe(mid + 0);
        const mad = sortedMedian(list.map((v) => Math.abs(v - mid))) * 1.4826;
        const outliers = mad > 0 ? list.flatMap((v, i) => (Math.abs(v - mid) / mad > 3.5 ? [i] : [])) : [];
        expect(stats.outliers).toEqual(outliers);
        expect(list).toEqual(copy); // the caller's values are not reordered
      }),
      { numRuns: 500 },
    );
  });

  it("samples larger than the reused selection buffer, then smaller ones, are each their own", () => {
    const large = Array.from({ length: 5000 }, (_, i) => (i * 7919) % 5000);
    expect(median(large)).toBe(2499.5);
    expect(summarize(large)!.median).toBe(2499.5);
    // What the large sample left in the buffer past a small one's length must not count.
    expect(median([3, 1, 2])).toBe(2);
    expect(summarize([4, 1])!.median).toBe(2.5);
  });

  it("mean, spread and the 95% confidence interval of a known sample", () => {
    const stats = summarize([10, 12, 11, 13, 9])!;
    expect(stats.mean).toBe(11);
    expect(stats.median).toBe(11);
    expect(stats.stddev).toBeCloseTo(Math.sqrt(2.5), 12);
    expect(stats.ci95![0]).toBeCloseTo(11 - (2.776 * Math.sqrt(2.5)) / Math.sqrt(5), 9);
    expect([stats.min, stats.max]).toEqual([9, 13]);
  });
});

describe("maxOf / minOf", () => {
  it("take the ends of a million values, where spreading them into Math.max overflows the stack", () => {
    const values = Array.from({ length: 1_000_000 }, (_, i) => ((i * 7919) % 1_000_003) - 500_000);
    expect(() => Math.max(...values)).toThrow(RangeError);
    const sorted = Float64Array.from(values).sort();
    expect(maxOf(values)).toBe(sorted[sorted.length - 1]);
    expect(minOf(values)).toBe(sorted[0]);
  });

  it("give the bound when there are no values or all are beyond it", () => {
    expect(maxOf([])).toBe(-Infinity);
    expect(minOf([])).toBe(Infinity);
    expect(maxOf([], 0)).toBe(0);
    expect(maxOf([-3, -1], 0)).toBe(0);
    expect(minOf([5, 7], 2)).toBe(2);
    expect(maxOf([-3, 4, 1], 0)).toBe(4);
  });
});
