/**
 * What a row merged from several hosts must be, as docs/language.md defines it: of a run on several hosts
 * (expectMerged), and of the compiled script's copies merged by `benchspec merge` (expectMergedCopies).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import {
  decodeHistogram,
  encodeBins,
  latencyOfHistogram,
  mergeHistograms,
} from "../../src/rows/histogram.js";
import type { ResultRow } from "../../src/rows/row.js";

const rowsOfFile = (file: string) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as ResultRow);

const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

/**
 * Seconds between the first and the last host's measured start (for the script's copies too, which stamp
 * their starts themselves: 0.3–8 ms apart seen here), each stamped by its host when its I/O began.
 * Every host is armed (its tool started and held, its setup done) before the start instant releases the
 * I/O alone: 0.001–0.02 s seen here, three hosts sharing two cores.
 */
export const START_SPREAD_BOUND = 0.1;

/**
 * A merged row as docs/language.md defines it: the hosts' sums over the common window of their I/O, started
 * together (each host's start measured by the host where its I/O began), the S3 p99 pooled.
 */
export function expectMerged(row: ResultRow, names: readonly string[]) {
  expect(row.ok, row.error).toBe(true);
  const parts = row.hosts!;
  expect(parts.map((part) => part.host).sort()).toEqual(names);
  expect(row.bytes).toBe(parts.reduce((sum, part) => sum + part.bytes, 0));
  expect(row.ops).toBe(parts.reduce((sum, part) => sum + part.ops, 0));
  expect(row.start).toBe(parts.map((part) => part.start).sort()[0]);
  expect(row.end).toBe(
    parts
      .map((part) => part.end)
      .sort()
      .at(-1),
  );
  expect(row.throughput * row.seconds).toBeCloseTo(row.bytes, -1);
  expect(row.startSpread, row.case).toBeLessThan(START_SPREAD_BOUND);
  if (row.engine === "fio") {
    // Each host's interval is its I/O (fio's runtime from the gate's opening), not fio's whole life: the
    // window is at most the longest host's I/O plus the spread of their starts.
    for (const part of parts)
      expect((Date.parse(part.end) - Date.parse(part.start)) / 1000).toBeCloseTo(part.seconds, 2);
    expect(row.seconds).toBeLessThanOrEqual(
      Math.max(...parts.map((part) => part.seconds)) + row.startSpread! + 0.002,
    );
  }
  if (row.engine === "s3") {
    // The merged p99 lies among the hosts' own, as a pooled percentile must.
    const p99s = parts.map((part) => part.latency!.p99!);
    expect(row.latency!.p99).toBeGreaterThanOrEqual(Math.min(...p99s) * 0.999);
    expect(row.latency!.p99).toBeLessThanOrEqual(Math.max(...p99s) * 1.001);
    // Each host timed every operation it counted, in the histogram it sent.
    for (const part of parts)
      expect(decodeHistogram(part.histograms!.latency!).totalCount, part.host).toBe(part.ops);
  }
  if (row.latency) {
    // Percentiles of all the hosts' operations: those of their histograms pooled, not of their own figures.
    const pooled = latencyOfHistogram(mergeHistograms(parts.map((part) => part.histograms!.latency!)))!;
    expect(row.latency, row.case).toMatchObject({ p50: pooled.p50, p90: pooled.p90, p99: pooled.p99 });
  }
}

/**
 * A merged row of the copies' rows: each host's part is its own row, the sums over the common window, the
 * starts together, the latency percentiles those of the pooled bins (fio's json+, curl's transfer times).
 */
export function expectMergedCopies(
  row: ResultRow,
  parts: readonly ResultRow[],
  names: readonly string[],
  spreadBound = START_SPREAD_BOUND,
) {
  expect(row.ok, row.error).toBe(true);
  expect(row.hosts!.map((host) => host.host)).toEqual(names);
  expect(row.bytes).toBe(parts.reduce((sum, part) => sum + part.bytes, 0));
  expect(row.ops).toBe(parts.reduce((sum, part) => sum + part.ops, 0));
  expect(row.start).toBe(
    parts
      .map((part) => part.start)
      .sort()[0]!
      .replace(/(\.\d{3})\d*Z$/, "$1Z"),
  );
  expect(row.startSpread, row.case).toBeLessThan(spreadBound);
  expect(row.throughput * row.seconds).toBeCloseTo(row.bytes, -1);
  if (row.engine === "dd") return;
  for (const part of parts) expect(sum(Object.values(part.latencyBins!)), part.case).toBe(part.ops);
  const pooled = latencyOfHistogram(
    mergeHistograms(
      parts.map((part) => encodeBins(Object.entries(part.latencyBins!).map(([ns, n]) => [Number(ns), n]))),
    ),
  )!;
  expect(row.latency).toMatchObject({ p50: pooled.p50, p90: pooled.p90, p99: pooled.p99 });
}

/** The merged rows, each with the copies' rows it was made of (in host order). */
export function mergedCopies(dir: string, copies: readonly string[]) {
  const each = copies.map(rowsOfFile);
  return rowsOfFile(join(dir, "results.ndjson")).map((row) => ({
    row,
    parts: each.map((rows) =>
      rows.find((r) => r.case === row.case && r.repetition === row.repetition && r.warmup === row.warmup)!,
    ),
  }));
}
