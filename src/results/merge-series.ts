/**
 * The time series of a case run on several hosts at once: each host's points moved onto the common clock
 * (seconds since the earliest host's start), and their sum on one grid. A point is the rate over the
 * interval that ends at its t (since the previous point, at most one step back); that rate is spread over
 * the grid's bins by overlap, so the hosts' bytes and operations add up whatever their offsets.
 */
import type { TimeseriesRow } from "../rows/row.js";
import { median } from "../rows/stats.js";

export type SeriesPoint = Omit<TimeseriesRow, "case" | "repetition" | "warmup">;

export interface PartSeries {
  /** The host (or target) whose points these are. */
  name: string;
  /** Seconds from the earliest part's start to this one's. */
  offset: number;
  /** t in seconds since this host's start. */
  points: readonly SeriesPoint[];
}

/** A bin ending within this share of a step from the last point's end is no bin of its own (rounding). */
const EPSILON = 1e-9;

/**
 * Every host's (or target's) points (with `host` or `target`, t on the common clock), then the summed series
 * (with neither) on a grid of
 * `step` seconds — the case's sampling interval, or when absent, the median spacing of the hosts' points.
 */
export function mergePartSeries(
  series: readonly PartSeries[],
  by: "host" | "target",
  step?: number,
): SeriesPoint[] {
  const sorted = series.map((s) => ({ ...s, points: [...s.points].sort((a, b) => a.t - b.t) }));
  const perHost = sorted.flatMap(({ name, offset, points }) =>
    points.map((point) => ({ ...point, [by]: name, t: point.t + offset })),
  );
  const grid = step ?? inferredStep(sorted);
  if (grid === undefined || !(grid > 0)) return perHost;
  return [...perHost, ...summed(sorted, grid)];
}

function summed(series: readonly PartSeries[], step: number): SeriesPoint[] {
  const bins = new Map<number, { throughput: number; iops: number }>();
  let end = 0;
  for (const { offset, points } of series) {
    let previous = 0;
    for (const point of points) {
      const from = offset + Math.max(previous, point.t - step);
      const to = offset + point.t;
      previous = point.t;
      end = Math.max(end, to);
      for (let k = Math.floor(from / step); k * step < to; k++) {
        const overlap = Math.min(to, (k + 1) * step) - Math.max(from, k * step);
        if (overlap <= 0) continue;
        const bin = bins.get(k) ?? { throughput: 0, iops: 0 };
        // Amounts, not rates: bytes and operations of the point's interval that fall in this bin.
        bin.throughput += point.throughput * overlap;
        bin.iops += point.iops * overlap;
        bins.set(k, bin);
      }
    }
  }
  const count = Math.ceil(end / step - EPSILON);
  return Array.from({ length: count }, (_, k) => {
    // The last bin ends with the last point: its rate is over the time it covers.
    const binEnd = Math.min((k + 1) * step, end);
    const seconds = binEnd - k * step;
    const bin = bins.get(k) ?? { throughput: 0, iops: 0 };
    return { t: binEnd, throughput: bin.throughput / seconds, iops: bin.iops / seconds };
  });
}

/** The median spacing of consecutive points within each host (the first point's t when none has two). */
function inferredStep(series: readonly PartSeries[]): number | undefined {
  const gaps = series.flatMap(({ points }) =>
    points.slice(1).flatMap((point, i) => {
      const gap = point.t - points[i]!.t;
      return gap > 0 ? [gap] : [];
    }),
  );
  if (gaps.length > 0) return median(gaps);
  return series.flatMap(({ points }) => points.map((p) => p.t)).find((t) => t > 0);
}
