/**
 * HDR latency histograms: what they keep survives their encoding, their percentiles are the samples' within
 * 0.1%, and a row's histogram stays small.
 */
import { describe, expect, it } from "vitest";
import {
  decodeHistogram,
  encodeSeconds,
  latencyOfHistogram,
  mergeHistograms,
} from "../../src/rows/histogram.js";
import { seededRandom } from "../../src/rows/random.js";
import { PERCENTILES } from "../../src/rows/metrics.js";
import { exactPercentile, expectWithinPrecision } from "./latency-support.js";

describe("latency histograms", () => {
  it("decode to what was recorded: count, percentiles within 0.1%, a mean within 0.05%", () => {
    const random = seededRandom(7);
    const samples = Array.from({ length: 20_001 }, () => 1e-4 * 10 ** (3 * random()));
    const histogram = decodeHistogram(encodeSeconds(samples));
    expect(histogram.totalCount).toBe(samples.length);
    const latency = latencyOfHistogram(histogram)!;
    for (const p of PERCENTILES) expectWithinPrecision(latency[p]!, exactPercentile(samples, p), p);
    const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
    expect(Math.abs(latency.mean! - mean) / mean).toBeLessThan(5e-4);
  });

  it("an empty histogram has no latency; merging nothing is empty", () => {
    expect(latencyOfHistogram(decodeHistogram(encodeSeconds([])))).toBeUndefined();
    expect(mergeHistograms([]).totalCount).toBe(0);
  });

  it("keeps latencies from 1 µs to hours at 3 significant digits", () => {
    const samples = [1e-6, 1.2345e-3, 4 * 3600];
    const merged = mergeHistograms(samples.map((s) => encodeSeconds([s])));
    expect(merged.totalCount).toBe(3);
    expectWithinPrecision(latencyOfHistogram(merged)!.p50!, 1.2345e-3, "p50");
    expectWithinPrecision(merged.getValueAtPercentile(100) / 1e9, 4 * 3600, "max");
    expectWithinPrecision(merged.getValueAtPercentile(1) / 1e9, 1e-6, "min");
  });

  it("1e6 S3 operations over 3 decades (100 µs … 100 ms) encode in under 20 KB", () => {
    const random = seededRandom(1);
    const encoded = encodeSeconds(Array.from({ length: 1e6 }, () => 1e-4 * 10 ** (3 * random())));
    console.log(`1e6 latencies over 3 decades: ${encoded.length} bytes of base64`);
    expect(encoded.length).toBeLessThan(20_000);
    expect(decodeHistogram(encoded).totalCount).toBe(1e6);
  });
});
