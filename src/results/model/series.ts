/**
 * Throughput and IOPS time series, folded in point by point and downsampled per case, so what reaches the
 * charts does not grow with the number of points; and each measured repetition's own points on the clock.
 */
import type { TimeseriesRow } from "../../rows/row.js";
import type { PlanCase, RepetitionSeries, SeriesAgg, SeriesPoint } from "./types.js";

/** Downsampled series keep at most this many points per case. */
export const SERIES_BINS = 300;

interface SeriesAcc {
  case: string;
  /** A host's own points (a case run on several hosts); without, the case's summed ones. */
  host?: string;
  t: number[];
  throughput: number[];
  iops: number[];
  /** Per point: repetition × 1024 + segment (the how-manieth series of that repetition number). */
  keys: number[];
  /** Per repetition: the last t and how many times t went backwards (a new repetition's series). */
  segments: Map<number, { lastT: number; segment: number }>;
}

/** A host's series of a case (case ids are file-name safe: none holds a NUL). */
const seriesKey = (caseId: string, host: string) => `${caseId}\u0000${host}`;

export class SeriesAccumulator {
  /** Keyed by case id, or case id and host (seriesKey). */
  private readonly series = new Map<string, SeriesAcc>();

  /**
   * A series point. Timeseries rows carry no warm-up flag, and warm-up repetitions reuse the measured
   * repetitions' numbers: for a case with `warmup` w, the first series of repetitions 1…w (before t
   * starts again from 0) is the warm-up's, and is dropped. A case run on several hosts has each host's
   * points besides the summed ones: each host's are a series of their own.
   */
  add(point: TimeseriesRow & { warmup?: boolean }): void {
    if (point.warmup) return;
    // A target's own points (a case over several targets at once) are a series of their own as a host's are.
    const part = point.host ?? point.target;
    const key = part === undefined ? point.case : seriesKey(point.case, part);
    let s = this.series.get(key);
    if (!s) {
      s = {
        case: point.case,
        ...(part !== undefined && { host: part }),
        t: [],
        throughput: [],
        iops: [],
        keys: [],
        segments: new Map(),
      };
      this.series.set(key, s);
    }
    let seg = s.segments.get(point.repetition);
    if (!seg) {
      seg = { lastT: -Infinity, segment: 0 };
      s.segments.set(point.repetition, seg);
    }
    if (point.t < seg.lastT) seg.segment += 1;
    seg.lastT = point.t;
    s.t.push(point.t);
    // fio writes bandwidth and IOPS logs with timestamps a millisecond apart, which the series merge keeps
    // as two points, each with the other metric at 0. A point with IOPS but no bytes (or bytes but no
    // IOPS) cannot be a measurement: it is that artefact, and its zero is not a sample.
    const artefactThroughput = point.throughput === 0 && point.iops > 0;
    const artefactIops = point.iops === 0 && point.throughput > 0;
    s.throughput.push(artefactThroughput ? NaN : point.throughput);
    s.iops.push(artefactIops ? NaN : point.iops);
    s.keys.push(point.repetition * 1024 + seg.segment);
  }

  has(caseId: string): boolean {
    return this.series.has(caseId);
  }

  /** Every series downsampled; the case's own (not a host's) with its repetitions on the clock. */
  finish(
    infoOf: (caseId: string) => PlanCase | undefined,
    startsOf: (caseId: string) => ReadonlyMap<number, number> | undefined,
  ): SeriesAgg[] {
    const series: SeriesAgg[] = [];
    for (const s of this.series.values()) {
      const params = infoOf(s.case)?.params;
      const warmups = typeof params?.warmup === "number" ? params.warmup : 0;
      const sample = typeof params?.sample === "number" ? params.sample : undefined;
      const timeline = s.host === undefined ? repetitionSeries(s, warmups, startsOf(s.case)) : undefined;
      series.push({ ...downsample(s, warmups, sample), ...(timeline && { timeline }) });
    }
    return series;
  }
}

/** Which series are warm-ups: segment 0 of repetitions 1…w that also have a segment 1. */
function warmupKeys(s: SeriesAcc, warmups: number): Set<number> {
  const dropped = new Set<number>();
  if (warmups > 0) {
    for (const [rep, seg] of s.segments) if (rep <= warmups && seg.segment > 0) dropped.add(rep * 1024);
  }
  return dropped;
}

/**
 * Each measured repetition's own points with its start instant, in the order they started (none when a
 * repetition's start is unknown: rows of older runs, imports).
 */
function repetitionSeries(
  s: SeriesAcc,
  warmups: number,
  starts: ReadonlyMap<number, number> | undefined,
): RepetitionSeries[] | undefined {
  if (!starts) return undefined;
  const dropped = warmupKeys(s, warmups);
  const byKey = new Map<number, RepetitionSeries>();
  for (let i = 0; i < s.t.length; i += 1) {
    const key = s.keys[i]!;
    if (dropped.has(key)) continue;
    let rep = byKey.get(key);
    if (!rep) {
      const repetition = Math.floor(key / 1024);
      const start = starts.get(repetition);
      if (start === undefined) return undefined;
      byKey.set(key, (rep = { repetition, start, points: [] }));
    }
    rep.points.push({ t: s.t[i]!, throughput: s.throughput[i]!, iops: s.iops[i]! });
  }
  return [...byKey.values()].sort((a, b) => a.start - b.start);
}

/** At most SERIES_BINS points: the mean of each time bin over all repetitions, with its min and max. */
function downsample(s: SeriesAcc, warmups: number, sample: number | undefined): SeriesAgg {
  const dropped = warmupKeys(s, warmups);
  const keys = s.keys;
  const reps = new Set<number>();
  let tMax = 0;
  let count = 0;
  for (let i = 0; i < s.t.length; i += 1) {
    if (dropped.has(keys[i]!)) continue;
    count += 1;
    reps.add(keys[i]!);
    if (s.t[i]! > tMax) tMax = s.t[i]!;
  }
  // Bins one sampling interval wide, centred on the sample instants, so the repetitions' samples (whose
  // timestamps jitter by a few ms) and fio's bandwidth/IOPS pairs meet in one bin; equal-width bins when
  // that would make more than SERIES_BINS.
  const perRep = count / Math.max(1, reps.size);
  const dt = sample && sample > 0 ? sample : tMax / Math.max(1, perRep);
  const exact = dt > 0 && tMax / dt + 1 <= SERIES_BINS;
  const binOf = exact
    ? (t: number) => Math.round(t / dt)
    : (t: number) => Math.min(SERIES_BINS - 1, Math.floor((t / (tMax || 1)) * SERIES_BINS));
  const bins = exact ? Math.round(tMax / dt) + 1 : SERIES_BINS;
  const acc = Array.from({ length: bins }, () => ({ t: 0, n: 0, tp: stat(), io: stat() }));
  for (let i = 0; i < s.t.length; i += 1) {
    if (dropped.has(keys[i]!)) continue;
    const bin = acc[binOf(s.t[i]!)]!;
    bin.t += s.t[i]!;
    bin.n += 1;
    add(bin.tp, s.throughput[i]!);
    add(bin.io, s.iops[i]!);
  }
  const points: SeriesPoint[] = [];
  for (const bin of acc) {
    if (bin.n === 0) continue;
    const point: SeriesPoint = { t: bin.t / bin.n };
    if (bin.tp.n > 0)
      Object.assign(point, {
        throughput: bin.tp.sum / bin.tp.n,
        throughputMin: bin.tp.min,
        throughputMax: bin.tp.max,
      });
    if (bin.io.n > 0)
      Object.assign(point, { iops: bin.io.sum / bin.io.n, iopsMin: bin.io.min, iopsMax: bin.io.max });
    points.push(point);
  }
  return {
    case: s.case,
    ...(s.host !== undefined && { host: s.host }),
    repetitions: reps.size,
    rawPoints: count,
    points,
  };
}

const stat = () => ({ n: 0, sum: 0, min: Infinity, max: -Infinity });
function add(s: ReturnType<typeof stat>, value: number) {
  if (!Number.isFinite(value)) return;
  s.n += 1;
  s.sum += value;
  if (value < s.min) s.min = value;
  if (value > s.max) s.max = value;
}
