/**
 * A workload's time series on one target's clock: every measured repetition of its cases there placed by
 * its start, for the x axes `elapsed` (seconds since the workload's first repetition on the target started,
 * idle gaps included: HIR) and `written` (GiB written to the target since then: WSAT).
 */
import { DEFAULT_MIX, MIXED_OPS, WRITING_OPS } from "../../spec/engines.js";
import type { Op } from "../../spec/words.js";
import type { RepetitionSeries } from "../model.js";
import { minOf } from "../../rows/stats.js";

export type TimelineAxis = "elapsed" | "written";

export interface TimelineCase {
  id: string;
  /** The share of its bytes that are written (1: writes only, 0: reads only). */
  writeShare: number;
  repetitions: readonly RepetitionSeries[];
}

export interface TimelinePoint {
  /** Seconds (elapsed) or GiB (written) since the first repetition of the cases on this clock started. */
  x: number;
  y: number;
  /** The repetition it is of. */
  r: number;
}

const GIB = 2 ** 30;

/**
 * The share of a case's bytes that are written: all of a writing op's, none of a reading op's, and of a
 * mixed one the share its `read` percentage (or its `mix`) leaves to writes.
 */
export function writeShare(op: string, params: Record<string, unknown>): number {
  if (!WRITING_OPS.has(op as Op)) return 0;
  if (MIXED_OPS.has(op as Op)) return typeof params.read === "number" ? (100 - params.read) / 100 : 0.5;
  if (op === "mixed") {
    const mix = (params.mix ?? DEFAULT_MIX) as Record<string, number>;
    const total = Object.values(mix).reduce((sum, share) => sum + share, 0);
    return total > 0 ? (mix.put ?? 0) / total : 0;
  }
  return 1;
}

/**
 * Each case's points of `y` on the workload's clock. A point sampled at t (seconds from its repetition's
 * start) covers the time since the repetition's previous point of that rate (its first: since the
 * repetition's start), so the bytes it wrote are its throughput × that interval × the case's write share;
 * `written` at a point is the sum of those of every point of the workload (all cases, all repetitions)
 * sampled at or before its instant.
 */
export function timelinePoints(
  cases: readonly TimelineCase[],
  axis: TimelineAxis,
  y: "throughput" | "iops",
): Map<string, TimelinePoint[]> {
  const starts = cases.flatMap((c) => c.repetitions.map((r) => r.start));
  const out = new Map<string, TimelinePoint[]>();
  if (starts.length === 0) return out;
  const origin = minOf(starts);
  const at = (r: RepetitionSeries, t: number) => (r.start - origin) / 1000 + t;
  // Bytes written, at the instant (seconds since the origin) of the point that reports them.
  const writes: { at: number; bytes: number }[] = [];
  if (axis === "written") {
    for (const c of cases)
      for (const r of c.repetitions) {
        let before = 0;
        for (const p of r.points) {
          if (!Number.isFinite(p.throughput)) continue;
          writes.push({ at: at(r, p.t), bytes: p.throughput * (p.t - before) * c.writeShare });
          before = p.t;
        }
      }
    writes.sort((a, b) => a.at - b.at);
  }
  const cumulative: number[] = [];
  writes.reduce((sum, w, i) => (cumulative[i] = sum + w.bytes), 0);
  /** Bytes written by every point at or before `instant`. */
  const writtenBy = (instant: number) => {
    let lo = 0;
    let hi = writes.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (writes[mid]!.at <= instant) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? 0 : cumulative[lo - 1]!;
  };
  for (const c of cases) {
    const points: TimelinePoint[] = [];
    for (const r of c.repetitions)
      for (const p of r.points) {
        const value = p[y];
        if (!Number.isFinite(value)) continue;
        const instant = at(r, p.t);
        points.push({
          x: axis === "elapsed" ? instant : writtenBy(instant) / GIB,
          y: value,
          r: r.repetition,
        });
      }
    out.set(c.id, points);
  }
  return out;
}

/**
 * About `bins` points at most: the means of runs of consecutive points of one repetition (the order, and
 * so the shape, kept; no run spans two repetitions).
 */
export function thinned(points: readonly TimelinePoint[], bins: number): TimelinePoint[] {
  if (points.length <= bins) return [...points];
  const size = Math.ceil(points.length / bins);
  const out: TimelinePoint[] = [];
  for (let i = 0; i < points.length;) {
    let end = i + 1;
    while (end < points.length && end - i < size && points[end]!.r === points[i]!.r) end += 1;
    const run = points.slice(i, end);
    out.push({
      x: run.reduce((s, p) => s + p.x, 0) / run.length,
      y: run.reduce((s, p) => s + p.y, 0) / run.length,
      r: points[i]!.r,
    });
    i = end;
  }
  return out;
}
