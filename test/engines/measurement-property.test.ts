/**
 * Every engine's headline numbers are what a reader checks with a calculator: throughput × seconds = bytes
 * and IOPS × seconds = operations, for the load generator (s3, ipfs), dd's and fio's outputs alike.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { measurementFromDd } from "../../src/engines/dd/run.js";
import { measurementFromFio } from "../../src/engines/fio/results.js";
import { measure, type OpRecord } from "../../src/engines/load/measure.js";
import type { Measurement } from "../../src/engines/types.js";
import { decodeHistogram, latencyOfHistogram } from "../../src/rows/histogram.js";
import { PERCENTILES } from "../../src/rows/metrics.js";
import { expectWithinPrecision, rankSafe } from "../results/latency-support.js";

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

function expectHonest(m: Pick<Measurement, "bytes" | "ops" | "seconds" | "throughput" | "iops">) {
  expect(m.seconds).toBeGreaterThan(0);
  expect(close(m.throughput * m.seconds, m.bytes), `${m.throughput} × ${m.seconds} ≠ ${m.bytes}`).toBe(true);
  expect(close(m.iops * m.seconds, m.ops), `${m.iops} × ${m.seconds} ≠ ${m.ops}`).toBe(true);
}

const loadRecords = fc.array(
  fc.record({
    worker: fc.integer({ min: 0, max: 15 }),
    start: fc.double({ min: 0, max: 5000, noNaN: true }),
    length: fc.double({ min: 0.001, max: 5000, noNaN: true }),
    bytes: fc.integer({ min: 0, max: 2 ** 30 }),
    failed: fc.boolean(),
  }),
  { minLength: 1, maxLength: 40 },
);

const loadResult = (records: OpRecord[]) => ({
  records,
  startedAt: 0,
  epochStart: Date.UTC(2026, 0, 1),
  cpuSeconds: 0.1,
  elu: 0.1,
  threads: 1,
});

describe("the load generator's measure()", () => {
  it("throughput × seconds = bytes and IOPS × seconds = operations, whatever the operations' shape", () => {
    fc.assert(
      fc.property(loadRecords, (generated) => {
        const records: OpRecord[] = generated.map((r) => ({
          worker: r.worker,
          start: r.start,
          end: r.start + r.length,
          bytes: r.bytes,
          ...(r.failed && { error: "failed" }),
        }));
        const m = measure(loadResult(records));
        expectHonest(m);
        expect(m.bytes).toBe(records.filter((r) => !r.error).reduce((sum, r) => sum + r.bytes, 0));
        const window = m.busyWindow!;
        if ("reason" in window) return;
        expect(close(window.throughput * window.seconds, window.bytes)).toBe(true);
        expect(window.from + window.seconds).toBeLessThanOrEqual(m.seconds + 1e-9);
      }),
    );
  });

  it("keeps every successful operation's latency in its histogram, with the row's percentiles within 0.1%", () => {
    fc.assert(
      fc.property(loadRecords, (generated) => {
        const records: OpRecord[] = generated.map((r) => ({
          worker: r.worker,
          start: r.start,
          end: r.start + r.length,
          firstByte: r.start + r.length / 2,
          bytes: r.bytes,
          kind: r.failed ? "PutObject" : "GetObject",
        }));
        const m = measure(loadResult(records));
        const latency = decodeHistogram(m.histograms!.latency!);
        expect(latency.totalCount).toBe(m.ops);
        expect(decodeHistogram(m.histograms!.ttfb!).totalCount).toBe(m.ops);
        for (const [kind, op] of Object.entries(m.byOp ?? {}))
          expect(decodeHistogram(op.histograms!.latency!).totalCount, kind).toBe(op.ops);
        if (!rankSafe(m.ops)) return;
        const fromHistogram = latencyOfHistogram(latency)!;
        for (const p of PERCENTILES) expectWithinPrecision(fromHistogram[p]!, m.latency![p]!, p);
      }),
    );
  });

  it("splits drawn sizes into their classes: the parts add up to the row, each keeps its latencies (response times at a rate)", () => {
    fc.assert(
      fc.property(
        loadRecords,
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 40, maxLength: 40 }),
        fc.boolean(),
        (generated, classes, openLoop) => {
          const records: OpRecord[] = generated.map((r, i) => ({
            worker: r.worker,
            start: r.start,
            end: r.start + r.length,
            bytes: r.bytes,
            sizeClass: 4096 * 4 ** classes[i]!,
            ...(openLoop && { due: r.start - 1 }),
            ...(r.failed && { error: "failed" }),
          }));
          const m = measure(loadResult(records), undefined, openLoop ? 100 : undefined);
          const parts = Object.entries(m.bySize!);
          expect(parts.reduce((sum, [, p]) => sum + p.ops, 0)).toBe(m.ops);
          expect(parts.reduce((sum, [, p]) => sum + p.bytes, 0)).toBe(m.bytes);
          expect(parts.reduce((sum, [, p]) => sum + p.ops + p.errors, 0)).toBe(records.length);
          for (const [key, part] of parts) {
            const mine = records.filter((r) => String(r.sizeClass) === key && !r.error);
            expect(part.ops).toBe(mine.length);
            if (mine.length === 0) continue;
            expect(decodeHistogram(part.histograms!.latency!).totalCount).toBe(mine.length);
            // The row's kind of latency: from the due instant in an open loop (1 ms before each start here).
            const latencies = mine.map((r) => (r.end - (openLoop ? r.due! : r.start)) / 1000);
            const mean = latencies.reduce((a, b) => a + b, 0) / latencies.length;
            expect(close(part.latency!.mean!, mean), `${part.latency!.mean} ≠ ${mean}`).toBe(true);
            expectWithinPrecision(
              latencyOfHistogram(decodeHistogram(part.histograms!.latency!))!.p50!,
              part.latency!.p50!,
              "p50",
            );
          }
        },
      ),
    );
  });

  it("8 × 64 MiB in 0.608 s reads 883 MB/s, and the sliver when all 8 were busy is no steady rate", () => {
    // One object per worker, the last one starting late and the first one ending early.
    const records: OpRecord[] = Array.from({ length: 8 }, (_, worker) => ({
      worker,
      start: worker * 10,
      end: 608 - (7 - worker) * 60,
      bytes: 64 * 2 ** 20,
    }));
    const m = measure(loadResult(records));
    expect(m.seconds).toBeCloseTo(0.608, 9);
    expect(m.throughput).toBeCloseTo(536_870_912 / 0.608, 3);
    expect(m.iops).toBeCloseTo(8 / 0.608, 9);
    expect(m.busyWindow).toEqual({
      reason: expect.stringMatching(
        /^all 8 workers were busy for 0\.118 s of the repetition's 0\.608 s: too short/,
      ),
    });
  });
});

describe("fio's JSON output", () => {
  const side = fc.record({
    io_bytes: fc.integer({ min: 0, max: 2 ** 40 }),
    total_ios: fc.integer({ min: 0, max: 2 ** 30 }),
    runtime: fc.integer({ min: 1, max: 3_600_000 }),
    // What fio prints is its own rounding over its own runtime; the row does not sum it.
    bw_bytes: fc.integer({ min: 0, max: 2 ** 40 }),
    iops: fc.double({ min: 0, max: 1e7, noNaN: true }),
  });
  it("throughput × seconds = bytes and IOPS × seconds = operations, read and write sides together", () => {
    fc.assert(
      fc.property(side, side, (read, write) => {
        fc.pre(read.io_bytes + write.io_bytes > 0);
        const m = measurementFromFio({ jobs: [{ jobname: "c", error: 0, read, write }] }, "c", 0, 1);
        expectHonest(m);
      }),
    );
  });
});

describe("dd's summary lines", () => {
  const process = fc.record({
    bytes: fc.integer({ min: 1, max: 2 ** 40 }),
    seconds: fc.double({ min: 0.001, max: 1e4, noNaN: true }),
  });
  it("throughput × seconds = bytes and IOPS × seconds = operations over the wall time", () => {
    fc.assert(
      fc.property(
        fc.array(process, { minLength: 1, maxLength: 8 }),
        fc.double({ min: 0.001, max: 1e4, noNaN: true }),
        fc.integer({ min: 512, max: 2 ** 24 }),
        (processes, wall, bs) => {
          const outputs = processes.map((p) => ({
            stderr: `1+0 records in\n1+0 records out\n${p.bytes} bytes (x) copied, ${p.seconds} s, 1 MB/s\n`,
            exitCode: 0,
          }));
          const m = measurementFromDd(outputs, bs, 0, wall);
          expect(m.bytes).toBe(processes.reduce((sum, p) => sum + p.bytes, 0));
          expectHonest(m);
          for (const [i, job] of m.jobs!.entries())
            expect(close(job.throughput * job.seconds, processes[i]!.bytes)).toBe(true);
        },
      ),
    );
  });
});
