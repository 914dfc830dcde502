import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { measurementFromFio, parseFioJson, seriesFromLogs } from "../../src/engines/fio/results.js";
import { decodeHistogram, latencyOfHistogram } from "../../src/rows/histogram.js";
import { PERCENTILES } from "../../src/rows/metrics.js";
import { expectWithinPrecision, rankSafe } from "../results/latency-support.js";

const side = (over: object = {}) => ({
  io_bytes: 0,
  bw_bytes: 0,
  iops: 0,
  runtime: 0,
  total_ios: 0,
  ...over,
});

describe("reading fio's json+ output", () => {
  it("tolerates warnings before the JSON and C's nan/inf in steady-state data", () => {
    const text = `fio: note: something\n{"jobs": [{"jobname": "c", "error": 0, "read": ${JSON.stringify(side())}, "write": ${JSON.stringify(
      side(),
    )}, "steadystate": {"ss": "iops_slope:10%", "attained": 1, "slope" : -nan, "criterion" : inf}}]}`;
    const output = parseFioJson(text);
    expect(output.jobs[0]?.steadystate).toMatchObject({ attained: 1, slope: null, criterion: null });
  });

  it("says which part of a malformed output is wrong, instead of failing on it later", () => {
    const job = (write: unknown) =>
      JSON.stringify({ jobs: [{ jobname: "c", error: 0, read: side(), write }] });
    expect(parseFioJson(job(side())).jobs).toHaveLength(1);
    expect(() => parseFioJson(job(null))).toThrow(/^jobs\.0\.write: .*expected object, received null/);
    expect(() => parseFioJson(job({ ...side(), total_ios: "many" }))).toThrow(/^jobs\.0\.write\.total_ios: /);
    expect(() => parseFioJson('{"fio version": "fio-3.33"}')).toThrow('no "jobs"');
  });

  it("sums read and write, and computes exact percentiles from the merged histogram bins", () => {
    const output = {
      jobs: [
        {
          jobname: "precondition-1",
          error: 0,
          read: side(),
          write: side({ io_bytes: 999, total_ios: 9, runtime: 9 }),
        },
        {
          jobname: "case",
          error: 0,
          // 90 reads at 1 ms, 10 writes at 10 ms
          read: side({
            io_bytes: 90 * 4096,
            bw_bytes: 1000,
            iops: 90,
            runtime: 2000,
            total_ios: 90,
            clat_ns: { mean: 1e6, bins: { "1000000": 90 } },
          }),
          write: side({
            io_bytes: 10 * 4096,
            bw_bytes: 100,
            iops: 10,
            runtime: 1500,
            total_ios: 10,
            clat_ns: { mean: 1e7, bins: { "10000000": 10 } },
          }),
          steadystate: { ss: "iops_slope:10%", attained: 0 },
        },
      ],
    };
    const m = measurementFromFio(output, "case", 0, 3000);
    expect(m).toMatchObject({
      ok: true,
      bytes: 100 * 4096,
      ops: 100,
      seconds: 2,
      // bytes and operations over the longer side's runtime, not fio's per-side figures summed
      throughput: (100 * 4096) / 2,
      iops: 50,
    });
    expect(m.latency).toEqual({
      mean: (90 * 1e-3 + 10 * 1e-2) / 100,
      p50: 1e-3,
      p90: 1e-3,
      p99: 1e-2,
      "p99.9": 1e-2,
    });
    expect(m.steady).toEqual({ criterion: "iops_slope:10%", attained: false });
    expect(() => measurementFromFio(output, "missing", 0, 1)).toThrow(/no job named missing/);
  });

  it("keeps the json+ bins as an HDR histogram with the bin walk's percentiles, within the HDR's 0.1%", () => {
    // fio's bin values (plat_idx_to_val, an integer): exact below 128 ns, then 64 bins per power of two,
    // each represented by its middle.
    const binValue = (index: number) => {
      if (index < 128) return index;
      const errorBits = (index >> 6) - 1;
      return Math.floor(2 ** (errorBits + 6) + ((index % 64) + 0.5) * 2 ** errorBits);
    };
    const bins = fc.dictionary(
      fc.integer({ min: 0, max: 1855 }).map((index) => String(binValue(index))),
      fc.integer({ min: 1, max: 5_000_000 }),
      { minKeys: 1, maxKeys: 300 },
    );
    fc.assert(
      fc.property(bins, bins, (readBins, writeBins) => {
        const total = (b: Record<string, number>) => Object.values(b).reduce((a, n) => a + n, 0);
        const [first] = Object.keys(readBins);
        while (!rankSafe(total(readBins) + total(writeBins))) readBins[first!]! += 1;
        const clat = (b: Record<string, number>) => ({ mean: 1, bins: b });
        const job = {
          jobname: "case",
          error: 0,
          read: side({ io_bytes: 1, runtime: 1000, total_ios: total(readBins), clat_ns: clat(readBins) }),
          write: side({ io_bytes: 1, runtime: 1000, total_ios: total(writeBins), clat_ns: clat(writeBins) }),
        };
        const m = measurementFromFio({ jobs: [job] }, "case", 0, 1000);
        const histogram = decodeHistogram(m.histograms!.latency!);
        expect(histogram.totalCount).toBe(total(readBins) + total(writeBins));
        const fromHdr = latencyOfHistogram(histogram)!;
        for (const p of PERCENTILES) expectWithinPrecision(fromHdr[p]!, m.latency![p]!, p);
      }),
      { numRuns: 200 },
    );
  });

  it("merges bandwidth and IOPS logs of several jobs into one series (bw logs are KiB/s)", () => {
    const series = seriesFromLogs([
      { kind: "bw", text: "500, 1000, 0, 4096, 0\n1000, 2000, 0, 4096, 0\n" },
      { kind: "bw", text: "500, 1000, 1, 4096, 0\n" },
      { kind: "iops", text: "500, 250, 0, 4096, 0\n1000, 500, 0, 4096, 0\n" },
    ]);
    expect(series).toEqual([
      { t: 0.5, throughput: 2000 * 1024, iops: 250 },
      { t: 1, throughput: 2000 * 1024, iops: 500 },
    ]);
  });
});
