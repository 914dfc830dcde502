/**
 * A time-series chart's data: per case the points of its downsampled series (the mean of each time bin
 * over the repetitions, with its min–max band), and fio's steady-state windows.
 */
import { maxOf, median } from "../../rows/stats.js";
import type { DisplayUnit } from "../format.js";
import type { SeriesAgg } from "../model.js";
import {
  compositeLabel,
  compositeOrder,
  dimLabel,
  dimOrder,
  type Entry,
  type WorkloadView,
} from "../view.js";
import { round, unitFor, type VlSpec } from "./common.js";
import { panelsOf, type Panels } from "./panels.js";
import {
  thinned,
  timelinePoints,
  writeShare,
  type TimelineAxis,
  type TimelinePoint,
} from "./timeline-data.js";
import { SERIES_BINS } from "../../results/model/series.js";

export interface TimeseriesRequest {
  y: "throughput" | "iops";
  /** The workload's clock instead of each repetition's: seconds or GiB written since its first repetition. */
  x?: TimelineAxis;
  /** A dimension for colour; without it, every case is its own colour (labelled by its varying dims). */
  color?: string;
  facets: string[];
  title?: string;
}

export interface TimeseriesData {
  /** The dimensions the colour stands for (none: the case id). */
  colorDims: string[];
  colorOrder: string[];
  /** A case's colour label (the `c` of its points). */
  colorOf: (e: Entry) => string;
  panels: Panels;
  unit: DisplayUnit;
  /** The highest value drawn (base units), the top of a band included. */
  max: number;
  /** Kind "ts": one per point of a series. */
  points: VlSpec[];
  /** Kind "ss": one per case with steady-state windows. */
  steady: VlSpec[];
  /** Whether some point has a min–max band. */
  banded: boolean;
  /** The most repetitions pooled into one series. */
  repetitions: number;
  /** The cases drawn, each labelled by its colour's and panel's dimensions, named (`parallel=2`). */
  cases: { entry: Entry; label: string }[];
}

/** The fields of a series point that hold the minimum and maximum of its bin. */
const BAND = {
  throughput: { min: "throughputMin", max: "throughputMax" },
  iops: { min: "iopsMin", max: "iopsMax" },
} as const;

/** The case's series (of a case run on several hosts: all hosts summed). */
export function seriesOf(entry: Entry): SeriesAgg | undefined {
  return entry.run.series.find((s) => s.case === entry.c.id && s.host === undefined);
}

/** Series drawn at most: each holds up to SERIES_BINS (results/model/series.ts) points. */
const MAX_SERIES = 48;

export function timeseriesData(view: WorkloadView, request: TimeseriesRequest): TimeseriesData | undefined {
  const { y } = request;
  const withSeries = view.entries.filter((e) =>
    request.x ? seriesOf(e)?.timeline : seriesOf(e)?.points.some((p) => p[y] !== undefined),
  );
  if (withSeries.length === 0) return undefined;
  const colorDims = request.color ? [request.color] : view.dims.filter((d) => !request.facets.includes(d));
  const colorOrder =
    colorDims.length > 0
      ? request.color
        ? dimOrder(withSeries, request.color)
        : compositeOrder(withSeries, colorDims)
      : withSeries.map((e) => e.c.id);
  const panels = panelsOf(withSeries, request.facets, MAX_SERIES);
  const colorOf = (e: Entry) => (colorDims.length > 0 ? compositeLabel(e, colorDims) : e.c.id);
  if (request.x) {
    // On the clock of all the workload's sampled cases, drawn or not.
    const points = onTimeline(withSeries, request.x, y);
    const values = panels.shown.flatMap((e) => points.get(e)!.map((p) => p.y));
    const unit = unitFor(y, values);
    return {
      colorDims,
      colorOrder,
      colorOf,
      panels,
      unit,
      max: maxOf(values, 0),
      points: panels.shown.flatMap((e) =>
        thinned(points.get(e)!, SERIES_BINS).map((p) => ({
          k: "ts",
          t: round(p.x),
          y: round(p.y / unit.factor),
          r: p.r,
          // One line per case and repetition: cases sharing a colour (one target's) are never joined.
          l: `${e.run.label}/${e.c.id}#${p.r}`,
          c: colorOf(e),
          ...panels.field(e),
        })),
      ),
      steady: [],
      banded: false,
      repetitions: maxOf(
        panels.shown.map((e) => seriesOf(e)!.timeline!.length),
        0,
      ),
      cases: panels.shown.map((e) => ({ entry: e, label: namedLabel(e, [...colorDims, ...request.facets]) })),
    };
  }
  const values: number[] = [];
  for (const e of panels.shown)
    for (const p of seriesOf(e)!.points) if (p[y] !== undefined) values.push(p[BAND[y].max] ?? p[y]!);
  const unit = unitFor(y, values);
  const series = panels.shown.map((e) =>
    seriesRows(seriesOf(e)!, y, unit, { c: colorOf(e), ...panels.field(e) }),
  );
  return {
    colorDims,
    colorOrder,
    colorOf,
    panels,
    unit,
    max: maxOf(values, 0),
    points: series.flatMap((s) => s.rows),
    steady: panels.shown.flatMap((e) => steadyRows(e, panels.field(e))),
    banded: series.some((s) => s.banded),
    repetitions: maxOf(
      panels.shown.map((e) => seriesOf(e)!.repetitions),
      0,
    ),
    cases: panels.shown.map((e) => ({ entry: e, label: namedLabel(e, [...colorDims, ...request.facets]) })),
  };
}

/**
 * The entries' points on their workload's clock: each run's cases, and each target's, on their own (a
 * device's data written and its time since its own first repetition: PTS draws each device apart).
 */
function onTimeline(
  entries: readonly Entry[],
  axis: TimelineAxis,
  y: TimeseriesRequest["y"],
): Map<Entry, TimelinePoint[]> {
  const out = new Map<Entry, TimelinePoint[]>();
  const runs = [...new Set(entries.map((e) => e.run))];
  const clockOf = (e: Entry) => `${runs.indexOf(e.run)}\0${e.c.target}`;
  for (const clock of new Set(entries.map(clockOf))) {
    const mine = entries.filter((e) => clockOf(e) === clock);
    const points = timelinePoints(
      mine.map((e) => ({
        id: e.c.id,
        writeShare: writeShare(e.c.op, e.c.params),
        repetitions: seriesOf(e)!.timeline!,
      })),
      axis,
      y,
    );
    for (const e of mine) out.set(e, points.get(e.c.id) ?? []);
  }
  return out;
}

const namedLabel = (e: Entry, dims: readonly string[]) =>
  dims.length > 0 ? dims.map((d) => `${d}=${dimLabel(e, d)}`).join(" · ") : e.c.id;

function seriesRows(
  series: SeriesAgg,
  y: TimeseriesRequest["y"],
  unit: DisplayUnit,
  place: VlSpec,
): { rows: VlSpec[]; banded: boolean } {
  const rows: VlSpec[] = [];
  let banded = false;
  for (const p of series.points) {
    const value = p[y];
    if (value === undefined) continue;
    const lo = p[BAND[y].min];
    const hi = p[BAND[y].max];
    const band = series.repetitions > 1 && lo !== undefined && hi !== undefined && hi > lo;
    banded ||= band;
    rows.push({
      k: "ts",
      t: round(p.t),
      y: round(value / unit.factor),
      ...(band && { lo: round(lo! / unit.factor), hi: round(hi! / unit.factor) }),
      ...place,
    });
  }
  return { rows, banded };
}

/** One window per case: the median start and end over its repetitions (they differ by a few samples). */
function steadyRows(e: Entry, place: VlSpec): VlSpec[] {
  const windows = e.run.steady.filter((s) => s.case === e.c.id);
  if (windows.length === 0) return [];
  const attained = windows.filter((w) => w.attained).length;
  return [
    {
      k: "ss",
      t0: round(median(windows.map((w) => w.start))),
      t1: round(median(windows.map((w) => w.end))),
      lab: `${e.c.id}: steady state attained in ${attained} of ${windows.length} repetition${windows.length === 1 ? "" : "s"} (${windows[0]!.criterion})`,
      txt: attained === windows.length ? "steady" : `steady in ${attained}/${windows.length}`,
      ...place,
    },
  ];
}
