/**
 * One row from the hosts of a case: sums over the common window a calculator checks, percentiles of all
 * hosts' operations pooled, each host's own numbers kept, and a time series summed on one grid.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { percentiles } from "../../src/engines/load/measure.js";
import { measurementFromFio } from "../../src/engines/fio/results.js";
import type { Measurement } from "../../src/engines/types.js";
import { decodeHistogram, encodeSeconds } from "../../src/rows/histogram.js";
import { mergeHostMeasurements, type HostMeasurement } from "../../src/results/merge-hosts.js";
import { PERCENTILES } from "../../src/rows/metrics.js";
import { seededRandom } from "../../src/rows/random.js";
import { exactPercentile, expectWithinPrecision, rankSafe } from "./latency-support.js";

const T0 = Date.UTC(2026, 0, 1);
const iso = (ms: number) => new Date(ms).toISOString();
const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

/** A host's measurement of `seconds` starting `startMs` after T0, its rates from its own numbers. */
function hostPart(host: string, startMs: number, ms: number, bytes: number, ops: number): HostMeasurement {
  const seconds = ms / 1000;
  return {
    host,
    measurement: {
      ok: true,
      start: iso(T0 + startMs),
      end: iso(T0 + startMs + ms),
      bytes,
      ops,
      seconds,
      throughput: bytes / seconds,
      iops: ops / seconds,
    },
  };
}

/** A host that timed these latencies: the row's exact percentiles and the histogram of the same samples. */
function timedPart(
  host: string,
  samples: readonly number[],
  over: Partial<Measurement> = {},
): HostMeasurement {
  const part = hostPart(host, 0, 1000, samples.length * 4096, samples.length);
  part.measurement = {
    ...part.measurement,
    latency: percentiles(samples),
    histograms: { latency: encodeSeconds(samples) },
    ...over,
  };
  return part;
}

/** Latency distributions unlike each other, all above 100 µs (where ns rounding is far below 0.1%). */
const DISTRIBUTIONS: Record<string, (random: () => number) => number> = {
  uniform: (random) => 1e-3 + 9e-3 * random(),
  logUniform: (random) => 1e-4 * 10 ** (3 * random()),
  lognormal: (random) =>
    2e-3 * Math.exp(0.8 * Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())),
  bimodal: (random) => (random() < 0.9 ? 5e-4 + 1e-4 * random() : 0.05 + 0.2 * random()),
  exponential: (random) => 1e-4 - 0.02 * Math.log(1 - random()),
};

describe("mergeHostMeasurements", () => {
  it("sums bytes and operations over the common window: throughput × seconds = bytes, IOPS × seconds = ops", () => {
    const host = fc.record({
      startMs: fc.integer({ min: 0, max: 5_000 }),
      ms: fc.integer({ min: 1, max: 600_000 }),
      bytes: fc.integer({ min: 0, max: 2 ** 40 }),
      ops: fc.integer({ min: 0, max: 10_000_000 }),
      ok: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(host, { minLength: 1, maxLength: 8 }), (hosts) => {
        const parts = hosts.map((h, i) => {
          const part = hostPart(`h${i}`, h.startMs, h.ms, h.bytes, h.ops);
          if (!h.ok) part.measurement = { ...part.measurement, ok: false, error: `e${i}` };
          return part;
        });
        const m = mergeHostMeasurements(parts);
        const start = Math.min(...hosts.map((h) => h.startMs));
        const end = Math.max(...hosts.map((h) => h.startMs + h.ms));
        expect(m.start).toBe(iso(T0 + start));
        expect(m.end).toBe(iso(T0 + end));
        expect(m.seconds).toBe((end - start) / 1000);
        expect(m.startSpread).toBe((Math.max(...hosts.map((h) => h.startMs)) - start) / 1000);
        expect(m.bytes).toBe(hosts.reduce((s, h) => s + h.bytes, 0));
        expect(m.ops).toBe(hosts.reduce((s, h) => s + h.ops, 0));
        expect(close(m.throughput * m.seconds, m.bytes), `${m.throughput} × ${m.seconds} ≠ ${m.bytes}`).toBe(
          true,
        );
        expect(close(m.iops * m.seconds, m.ops), `${m.iops} × ${m.seconds} ≠ ${m.ops}`).toBe(true);
        expect(m.ok).toBe(hosts.every((h) => h.ok));
        const failed = hosts.flatMap((h, i) => (h.ok ? [] : [`h${i}: e${i}`]));
        expect(m.error).toBe(failed.length > 0 ? failed.join("; ") : undefined);
        expect(m.hosts!.map((h) => [h.host, h.bytes, h.ops, h.start])).toEqual(
          parts.map((p) => [p.host, p.measurement.bytes, p.measurement.ops, p.measurement.start]),
        );
      }),
    );
  });

  it("merged p50 … p99.9 are the pooled samples' percentiles within 0.1%, whatever each host's distribution", () => {
    const hostSpec = fc.record({
      distribution: fc.constantFrom(...Object.keys(DISTRIBUTIONS)),
      seed: fc.integer(),
      count: fc.integer({ min: 2, max: 4000 }),
    });
    fc.assert(
      fc.property(fc.array(hostSpec, { minLength: 2, maxLength: 4 }), (hosts) => {
        const samples = hosts.map(({ distribution, seed, count }) => {
          const random = seededRandom(seed);
          return Array.from({ length: count }, () => DISTRIBUTIONS[distribution]!(random));
        });
        // Dropped from the largest host, which has samples as long as the pool has more than one.
        while (!rankSafe(samples.flat().length))
          samples.reduce((a, b) => (b.length > a.length ? b : a)).pop();
        const m = mergeHostMeasurements(samples.map((s, i) => timedPart(`h${i}`, s)));
        const pooled = samples.flat();
        for (const p of PERCENTILES) expectWithinPrecision(m.latency![p]!, exactPercentile(pooled, p), p);
        // The mean is exact: the hosts' means weighted by their operations are the pooled samples' mean.
        const mean = pooled.reduce((a, b) => a + b, 0) / pooled.length;
        expect(close(m.latency!.mean!, mean), `${m.latency!.mean} ≠ ${mean}`).toBe(true);
        expect(decodeHistogram(m.histograms!.latency!).totalCount).toBe(pooled.length);
        // Each host keeps its own exact numbers.
        expect(m.hosts!.map((h) => h.latency)).toEqual(samples.map((s) => percentiles(s)));
      }),
      { numRuns: 25 },
    );
  });

  it("time to first byte and each operation of a mix and each size class are pooled the same way; a host without histograms leaves no guess", () => {
    const a = [0.001, 0.002, 0.003];
    const b = [0.01, 0.02];
    const withTtfb = (host: string, samples: number[]) =>
      timedPart(host, samples, {
        ttfb: percentiles(samples),
        histograms: { latency: encodeSeconds(samples), ttfb: encodeSeconds(samples) },
        byOp: {
          GetObject: {
            ops: samples.length,
            bytes: 10,
            errors: 1,
            latency: percentiles(samples),
            histograms: { latency: encodeSeconds(samples) },
          },
          ...(host === "b" && { PutObject: { ops: 1, bytes: 5, errors: 0, latency: percentiles([0.5]) } }),
        },
        bySize: {
          "4096": {
            ops: samples.length,
            bytes: 4096 * samples.length,
            errors: 0,
            latency: percentiles(samples),
            histograms: { latency: encodeSeconds(samples) },
          },
        },
      });
    const m = mergeHostMeasurements([withTtfb("a", a), withTtfb("b", b)]);
    expectWithinPrecision(m.ttfb!.p50!, 0.003, "ttfb p50");
    expect(decodeHistogram(m.histograms!.ttfb!).totalCount).toBe(5);
    expect(m.byOp!.GetObject).toMatchObject({ ops: 5, bytes: 20, errors: 2 });
    expectWithinPrecision(m.byOp!.GetObject!.latency!.p99!, 0.02, "GetObject p99");
    // Only host b's PutObject was timed, without its histogram: counted, but no latency invented.
    expect(m.byOp!.PutObject).toEqual({ ops: 1, bytes: 5, errors: 0 });
    // A size class of drawn sizes pools like an operation.
    expect(m.bySize!["4096"]).toMatchObject({ ops: 5, bytes: 5 * 4096, errors: 0 });
    expectWithinPrecision(m.bySize!["4096"]!.latency!.p99!, 0.02, "4 KiB class p99");

    const noHistogram = timedPart("c", [0.004]);
    delete noHistogram.measurement.histograms;
    const partial = mergeHostMeasurements([timedPart("a", a), noHistogram]);
    expect(partial.latency).toBeUndefined();
    expect(partial.histograms).toBeUndefined();
    // A failed host that timed nothing does not stop the others' pooling.
    const failed = hostPart("d", 0, 10, 0, 0);
    failed.measurement = { ...failed.measurement, ok: false, error: "connection refused" };
    const pooled = mergeHostMeasurements([timedPart("a", a), failed]);
    expect(pooled).toMatchObject({ ok: false, error: "d: connection refused" });
    expectWithinPrecision(pooled.latency!.p50!, 0.002, "p50");
  });

  it("the mean latency is the hosts' means weighted by their operations, exactly; without a host's mean, the histograms'", () => {
    // Host a: 3 operations at 1 ms, 2 ms and 3 ms (mean 2 ms); host b: 1 operation at 10 ms.
    const a = timedPart("a", [0.001, 0.002, 0.003]);
    const b = timedPart("b", [0.01]);
    for (const part of [a, b]) {
      const { latency, histograms } = part.measurement;
      part.measurement.ttfb = latency;
      part.measurement.histograms = { ...histograms, ttfb: histograms!.latency };
      part.measurement.byOp = {
        GetObject: { ops: part.measurement.ops, bytes: 0, errors: 0, latency, histograms },
      };
    }
    const m = mergeHostMeasurements([a, b]);
    const exact = (3 * 0.002 + 1 * 0.01) / 4;
    expect(m.latency!.mean).toBeCloseTo(exact, 15);
    expect(m.ttfb!.mean).toBeCloseTo(exact, 15);
    expect(m.byOp!.GetObject!.latency!.mean).toBeCloseTo(exact, 15);
    // Not the unweighted mean of the means (6 ms), which a host with few operations would drag.
    expect(m.latency!.mean).not.toBeCloseTo((0.002 + 0.01) / 2, 6);

    // A stored row without its mean: the histograms' mean, within their 0.1%.
    delete b.measurement.latency!.mean;
    const fallback = mergeHostMeasurements([a, b]).latency!.mean!;
    expect(Math.abs(fallback - exact) / exact).toBeLessThan(1e-3);
  });

  it("fio rows from hosts started together: the window is the common window of their I/O, not of fio's start-up", () => {
    // Three hosts' fio, each 1 s of I/O at 100 MB/s, whose gates opened 0, 4 and 9 ms after the start instant:
    // the merged row covers 1.009 s and has three hosts' throughput over it, not over fio's whole process life.
    const fioOf = (host: string, ioStartMs: number): HostMeasurement => {
      const read = { io_bytes: 1e8, bw_bytes: 1e8, iops: 1000, runtime: 1000, total_ios: 1000 };
      const write = { io_bytes: 0, bw_bytes: 0, iops: 0, runtime: 0, total_ios: 0 };
      const output = { jobs: [{ jobname: "c", error: 0, read, write }] };
      return { host, measurement: measurementFromFio(output, "c", T0 + ioStartMs) };
    };
    const m = mergeHostMeasurements([fioOf("h1", 0), fioOf("h2", 4), fioOf("h3", 9)]);
    expect(m.hosts!.map((h) => [h.start, h.end])).toEqual(
      [0, 4, 9].map((ms) => [iso(T0 + ms), iso(T0 + ms + 1000)]),
    );
    expect(m.seconds).toBeCloseTo(1.009, 12);
    expect(m.startSpread).toBeCloseTo(0.009, 12);
    expect(m.throughput).toBeCloseTo(3e8 / 1.009, 3);
  });

  it("client cost, processes, steady state and busy window over the hosts", () => {
    const a = hostPart("a", 0, 1000, 2 * 2 ** 30, 2);
    const b = hostPart("b", 100, 1000, 2 ** 30, 1);
    a.measurement = {
      ...a.measurement,
      client: { cpuSeconds: 2, cpuPerGiB: 1, eventLoopUtilization: 0.4, threads: 2 },
      jobs: [
        { job: 0, bytes: 2 ** 30, seconds: 1, throughput: 2 ** 30 },
        { job: 1, bytes: 2 ** 30, seconds: 1, throughput: 2 ** 30 },
      ],
      steady: { criterion: "iops_slope:10%", attained: true },
      busyWindow: { from: 0.1, seconds: 0.8, bytes: 1, throughput: 1, iops: 1 },
    };
    b.measurement = {
      ...b.measurement,
      client: { cpuSeconds: 1, cpuPerGiB: 1, eventLoopUtilization: 0.9, threads: 1 },
      jobs: [{ job: 0, bytes: 2 ** 30, seconds: 1, throughput: 2 ** 30 }],
      steady: { criterion: "iops_slope:10%", attained: false },
      busyWindow: { reason: "too short" },
    };
    const m = mergeHostMeasurements([a, b]);
    expect(m.client).toEqual({ cpuSeconds: 3, cpuPerGiB: 1, eventLoopUtilization: 0.9, threads: 3 });
    expect(m.jobs!.map((j) => [j.job, j.host])).toEqual([
      [0, "a"],
      [1, "a"],
      [2, "b"],
    ]);
    expect(m.steady).toEqual({ criterion: "iops_slope:10%", attained: false });
    expect(m.busyWindow).toEqual({ reason: expect.stringContaining("several hosts") });
    expect(m.startSpread).toBeCloseTo(0.1, 12);
    expect(m.seconds).toBeCloseTo(1.1, 12);
  });

  it("time series: each host's points on the common clock, and their sum on one grid (hosts 0.35 s apart, grid 0.1 s)", () => {
    // Host a from 0 s: 100 B/s and 10 op/s for 1 s; host b from 0.35 s: 50 B/s and 5 op/s for 1 s.
    const points = (throughput: number, iops: number) =>
      Array.from({ length: 10 }, (_, i) => ({ t: (i + 1) / 10, throughput, iops }));
    const a = hostPart("a", 0, 1000, 100, 10);
    const b = hostPart("b", 350, 1000, 50, 5);
    a.measurement.timeseries = points(100, 10);
    b.measurement.timeseries = points(50, 5);
    const series = mergeHostMeasurements([a, b], 0.1).timeseries!;

    const ofB = series.filter((p) => p.host === "b");
    expect(ofB.map((p) => p.t)).toEqual(points(0, 0).map((p) => p.t + 0.35));
    expect(series.filter((p) => p.host === "a")).toEqual(points(100, 10).map((p) => ({ ...p, host: "a" })));

    const sum = series.filter((p) => p.host === undefined);
    const expected = [
      [0.1, 100],
      [0.2, 100],
      [0.3, 100],
      [0.4, 125], // b's first 0.1 s (0.35–0.45) is half in this bin
      ...[0.5, 0.6, 0.7, 0.8, 0.9, 1.0].map((t) => [t, 150]),
      [1.1, 50],
      [1.2, 50],
      [1.3, 50],
      [1.35, 50], // the last bin ends with b's last point
    ];
    expect(sum).toHaveLength(expected.length);
    sum.forEach((p, i) => {
      expect(p.t).toBeCloseTo(expected[i]![0]!, 9);
      expect(p.throughput, `t ${p.t}`).toBeCloseTo(expected[i]![1]!, 6);
      expect(p.iops, `t ${p.t}`).toBeCloseTo(expected[i]![1]! / 10, 6);
    });
    // Nothing is lost or counted twice: the summed bytes are both hosts' bytes.
    const bytes = sum.reduce((s, p, i) => s + p.throughput * (p.t - (i > 0 ? sum[i - 1]!.t : 0)), 0);
    expect(bytes).toBeCloseTo(150, 6);

    // Without the sampling interval, the grid is the points' spacing.
    const inferred = mergeHostMeasurements([a, b]).timeseries!.filter((p) => p.host === undefined);
    expect(inferred).toHaveLength(sum.length);
    inferred.forEach((p, i) => expect(p.throughput).toBeCloseTo(sum[i]!.throughput, 6));
  });
});
