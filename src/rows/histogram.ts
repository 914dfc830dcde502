/**
 * Latency histograms (HdrHistogram), what lets rows measured apart — the hosts of one case — give the
 * percentiles of all their operations together: percentiles do not add up, histograms do. Values are
 * nanoseconds at 3 significant digits (a bucket is at most 0.1% of its values wide), from 1 ns up; a
 * histogram starts out covering an hour and grows when a longer latency arrives. Rows store them in
 * HdrHistogram's compressed base64 encoding (V2), which every HdrHistogram port reads.
 *
 * hdr-histogram-js builds its plain JS histograms (typed arrays; base64 and deflate in JS) unless asked
 * for WebAssembly: nothing here needs WebAssembly or Buffer.
 */
import {
  build,
  decodeFromCompressedBase64,
  encodeIntoCompressedBase64,
  type Histogram,
} from "hdr-histogram-js";
import type { Latency } from "./row.js";

const NS_PER_SECOND = 1e9;

/** Counts as float64, exact up to 2^53 per bucket: 32-bit counts overflow on an hour of fio at 1M IOPS. */
const BUCKET_BITS = 64;

export function newHistogram(): Histogram {
  return build({
    bitBucketSize: BUCKET_BITS,
    numberOfSignificantValueDigits: 3,
    lowestDiscernibleValue: 1,
    highestTrackableValue: 3600 * NS_PER_SECOND,
    autoResize: true,
    useWebAssembly: false,
  });
}

/** Records a latency given in seconds, `count` times. */
export function recordSeconds(histogram: Histogram, seconds: number, count = 1): void {
  histogram.recordValueWithCount(Math.max(0, Math.round(seconds * NS_PER_SECOND)), count);
}

/** The encoded histogram of some latencies in seconds. */
export function encodeSeconds(values: Iterable<number>): string {
  const histogram = newHistogram();
  for (const seconds of values) recordSeconds(histogram, seconds);
  return encodeHistogram(histogram);
}

/**
 * The encoded histogram of latency bins (nanoseconds → count): fio's json+ bins, or a compiled script's
 * `latencyBins`. Each bin's value is recorded with its count, so a bin keeps a bucket of its own (fio's bins
 * are coarser than the HDR's; the script's are cut to the HDR's own bucket values).
 */
export function encodeBins(bins: Iterable<readonly [number, number]>): string {
  const histogram = newHistogram();
  for (const [ns, count] of bins) histogram.recordValueWithCount(Math.max(0, Math.round(ns)), count);
  return encodeHistogram(histogram);
}

export const encodeHistogram = (histogram: Histogram): string => encodeIntoCompressedBase64(histogram);

export const decodeHistogram = (encoded: string): Histogram =>
  decodeFromCompressedBase64(encoded, BUCKET_BITS);

/** One histogram holding every value of the encoded ones. */
export function mergeHistograms(encoded: readonly string[]): Histogram {
  const merged = newHistogram();
  for (const one of encoded) merged.add(decodeHistogram(one));
  return merged;
}

/**
 * A row's latency object (seconds) from a histogram, undefined when it is empty. The percentiles are the
 * upper ends of their buckets (never below the true value, at most 0.1% above it); the mean counts each
 * value at its bucket's middle.
 */
export function latencyOfHistogram(histogram: Histogram): Latency | undefined {
  if (histogram.totalCount === 0) return undefined;
  const at = (percentile: number) => histogram.getValueAtPercentile(percentile) / NS_PER_SECOND;
  return {
    mean: histogram.mean / NS_PER_SECOND,
    p50: at(50),
    p90: at(90),
    p99: at(99),
    "p99.9": at(99.9),
  };
}
