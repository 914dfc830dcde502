/** An open loop's schedule (engines/load/schedule.ts): when each operation is due, and the pace its starts kept. */
import { describe, expect, it } from "vitest";
import { dueOffsets, hostSchedule } from "../../src/engines/load/schedule.js";
import { paceOf } from "../../src/engines/load/measure.js";

describe("the schedule of an open loop", () => {
  it("constant arrivals: operation n is due at n ÷ rate", () => {
    const due = dueOffsets({ opsPerSecond: 200, arrivals: "constant", seed: "c" });
    expect([0, 1, 2, 599].map(due)).toEqual([0, 5, 10, 2995]);
  });

  it("poisson arrivals: exponential gaps of the rate's mean, the same for a seed, another for another seed", () => {
    const n = 20_000;
    const offsets = (seed: string) => {
      const due = dueOffsets({ opsPerSecond: 500, arrivals: "poisson", seed });
      return Array.from({ length: n }, (_, i) => due(i));
    };
    const a = offsets("case-a");
    expect(offsets("case-a")).toEqual(a);
    expect(offsets("case-b")).not.toEqual(a);
    const gaps = a.map((x, i) => x - (i === 0 ? 0 : a[i - 1]!));
    expect(gaps.every((gap) => gap >= 0)).toBe(true);
    // Mean 2 ms, within 3 % (its standard error over 20,000 gaps is 0.7 %).
    const mean = gaps.reduce((s, g) => s + g, 0) / n;
    expect(Math.abs(mean - 2) / 2).toBeLessThan(0.03);
    // Goodness of fit: the exponential's CDF at its deciles, Kolmogorov–Smirnov distance under the 1 %
    // critical value (1.63 ÷ √n).
    const sorted = [...gaps].sort((x, y) => x - y);
    let distance = 0;
    sorted.forEach((gap, i) => {
      const cdf = 1 - Math.exp(-gap / 2);
      distance = Math.max(distance, Math.abs(cdf - (i + 1) / n), Math.abs(cdf - i / n));
    });
    expect(distance).toBeLessThan(1.63 / Math.sqrt(n));
  });

  it("asked for an earlier operation than the last, it walks the sequence again: the same instants", () => {
    const due = dueOffsets({ opsPerSecond: 100, arrivals: "poisson", seed: "x" });
    const forward = [0, 1, 2, 3, 50].map(due);
    expect([0, 1, 2, 3, 50].map(due)).toEqual(forward);
    expect(due(2)).toBe(forward[2]);
  });
});

describe("a host's share of a group's schedule", () => {
  it("constant: host k of 3 takes every third instant from the k-th; together, exactly the group's", () => {
    const group = { opsPerSecond: 300, arrivals: "constant" as const, seed: "s" };
    const instants = [0, 1, 2].flatMap((index) => {
      const due = dueOffsets(hostSchedule(group, { index, count: 3 }));
      return Array.from({ length: 100 }, (_, n) => due(n));
    });
    const whole = dueOffsets(group);
    const expected = Array.from({ length: 300 }, (_, n) => whole(n));
    const sorted = instants.sort((a, b) => a - b);
    sorted.forEach((at, i) => expect(at).toBeCloseTo(expected[i]!, 9));
  });

  it("poisson: each host its own stream at rate ÷ hosts; one host alone keeps the group's", () => {
    const group = { opsPerSecond: 300, arrivals: "poisson" as const, seed: "s" };
    const [a, b] = [0, 1].map((index) => hostSchedule(group, { index, count: 2 }));
    expect(a!.opsPerSecond).toBe(150);
    expect(a!.seed).not.toBe(b!.seed);
    expect(hostSchedule(group, { index: 0, count: 1 })).toEqual(group);
  });
});

describe("the pace of an open loop's starts (achieved)", () => {
  const dues = Float64Array.from({ length: 600 }, (_, i) => i * 5);
  it("is 1 when the starts kept the schedule, also when the first or last operations started half a second late", () => {
    expect(
      paceOf(
        dues,
        dues.map((d) => d + 0.3),
      ),
    ).toBeCloseTo(1, 9);
    // The last 5 operations started 500 ms late: a rate over the first and last start would say 14 % slow.
    const lateEnd = dues.map((d, i) => (i >= 595 ? 3000 + 500 : d));
    expect(Math.abs(paceOf(dues, lateEnd) - 1)).toBeLessThan(0.01);
    const lateStart = dues.map((d, i) => (i < 5 ? 500 : d));
    expect(Math.abs(paceOf(dues, lateStart) - 1)).toBeLessThan(0.01);
  });

  it("is the ratio of the spacings when the client started them slower, and 0 when there is nothing to fit", () => {
    expect(
      paceOf(
        dues,
        dues.map((d) => d * (6.7 / 5)),
      ),
    ).toBeCloseTo(6.7 / 5, 9);
    expect(paceOf(Float64Array.of(1), Float64Array.of(2))).toBe(0);
    expect(paceOf(Float64Array.of(1, 1), Float64Array.of(2, 3))).toBe(0);
  });
});
