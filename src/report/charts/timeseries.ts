/**
 * Throughput or IOPS over time (WSAT-style, upload-over-time-style): one line per case, the mean of each
 * time bin over the repetitions, with the min–max band of the bin; fio's steady-state windows shaded.
 */
import type { Metric } from "../../spec/schema.js";
import { METRIC_TITLE } from "../format.js";
import type { SeriesAgg } from "../model.js";
import { compositeLabel, compositeOrder, dimOrder, type Entry, type WorkloadView } from "../view.js";
import { axisTitle } from "./sweep.js";
import {
  compose,
  filterKind,
  limitLayers,
  limitRows,
  MAX_FACETS,
  metricAxisTitle,
  round,
  unitFor,
  type Chart,
  type ChartContext,
  type VlSpec,
} from "./common.js";

export interface TimeseriesRequest {
  y: "throughput" | "iops";
  /** A dimension for colour; without it, every case is its own colour (labelled by its varying dims). */
  color?: string;
  facets: string[];
  title?: string;
}

const medianOf = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

export function seriesOf(entry: Entry): SeriesAgg | undefined {
  return entry.run.series.find((s) => s.case === entry.c.id);
}

export function timeseriesChart(
  view: WorkloadView,
  request: TimeseriesRequest,
  ctx: ChartContext,
  id: string,
): Chart | undefined {
  const { y } = request;
  const metric: Metric = y;
  const withSeries = view.entries.filter((e) => seriesOf(e)?.points.some((p) => p[y] !== undefined));
  if (withSeries.length === 0) return undefined;
  const facetDims = request.facets;
  const colorDims = request.color ? [request.color] : view.dims.filter((d) => !facetDims.includes(d));
  const colorOf = (e: Entry) => (colorDims.length > 0 ? compositeLabel(e, colorDims) : e.c.id);
  const colorOrder =
    colorDims.length > 0
      ? request.color
        ? dimOrder(withSeries, request.color)
        : compositeOrder(withSeries, colorDims)
      : withSeries.map((e) => e.c.id);
  let facetOrder = compositeOrder(withSeries, facetDims);
  const caption: string[] = [];
  let shown = withSeries;
  if (facetOrder.length > MAX_FACETS) {
    caption.push(`Only the first ${MAX_FACETS} of ${facetOrder.length} panels are drawn.`);
    facetOrder = facetOrder.slice(0, MAX_FACETS);
    const keep = new Set(facetOrder);
    shown = withSeries.filter((e) => keep.has(compositeLabel(e, facetDims)));
  }
  const facetOf = (e: Entry) => (facetDims.length > 0 ? { f: compositeLabel(e, facetDims) } : {});

  const minKey = y === "throughput" ? "throughputMin" : "iopsMin";
  const maxKey = y === "throughput" ? "throughputMax" : "iopsMax";
  const values: number[] = [];
  for (const e of shown)
    for (const p of seriesOf(e)!.points) if (p[y] !== undefined) values.push(p[maxKey] ?? p[y]!);
  const unit = unitFor(metric, values);
  const max = Math.max(0, ...values);
  const rows: VlSpec[] = [];
  let banded = false;
  let repetitions = 0;
  for (const e of shown) {
    const series = seriesOf(e)!;
    repetitions = Math.max(repetitions, series.repetitions);
    for (const p of series.points) {
      const value = p[y];
      if (value === undefined) continue;
      const lo = p[minKey];
      const hi = p[maxKey];
      const band = series.repetitions > 1 && lo !== undefined && hi !== undefined && hi > lo;
      banded ||= band;
      rows.push({
        k: "ts",
        t: round(p.t),
        y: round(value / unit.factor),
        ...(band && { lo: round(lo! / unit.factor), hi: round(hi! / unit.factor) }),
        c: colorOf(e),
        ...facetOf(e),
      });
    }
  }
  // One window per case: the median start and end over its repetitions (they differ by a few samples).
  const steadyRows: VlSpec[] = [];
  for (const e of shown) {
    const windows = e.run.steady.filter((s) => s.case === e.c.id);
    if (windows.length === 0) continue;
    const attained = windows.filter((w) => w.attained).length;
    steadyRows.push({
      k: "ss",
      t0: round(medianOf(windows.map((w) => w.start))),
      t1: round(medianOf(windows.map((w) => w.end))),
      lab: `${e.c.id}: steady state attained in ${attained} of ${windows.length} repetition${windows.length === 1 ? "" : "s"} (${windows[0]!.criterion})`,
      txt: attained === windows.length ? "steady" : `steady in ${attained}/${windows.length}`,
      ...facetOf(e),
    });
  }
  const limits = limitRows(ctx.limits, metric, unit, max, facetDims.length > 0 ? facetOrder : [undefined]);
  caption.unshift(
    repetitions > 1
      ? `Lines and points: the mean of each time bin over ${repetitions} repetitions; band: their minimum and maximum.`
      : "Lines and points: the measured samples (time bins when there are many).",
  );
  if (steadyRows.length > 0)
    caption.push(
      "Green areas: the window in which fio checked its steady-state criterion (the last window before it stopped the job).",
    );
  caption.push(...limits.caption);

  const x = { field: "t", type: "quantitative", title: "time (s)", scale: { zero: true } };
  const yTitle = metricAxisTitle(metric, unit);
  const color = {
    field: "c",
    type: "nominal",
    title: colorDims.length > 0 ? colorDims.map(axisTitle).join(" · ") : "case",
    sort: colorOrder,
    legend: { symbolType: "stroke", symbolStrokeWidth: 2, symbolOpacity: 1 },
  };
  const layers: VlSpec[] = [];
  if (steadyRows.length > 0) {
    layers.push({
      transform: [filterKind("ss")],
      mark: { type: "rect", color: "#2e7d32", opacity: 0.15 },
      encoding: {
        x: { field: "t0", type: "quantitative", title: "time (s)" },
        x2: { field: "t1" },
        tooltip: [{ field: "lab", title: "fio" }],
      },
    });
    layers.push({
      transform: [filterKind("ss")],
      mark: { type: "text", color: "#2e7d32", align: "left", baseline: "top", dx: 3, dy: 3, fontSize: 10 },
      encoding: {
        x: { field: "t0", type: "quantitative" },
        y: { value: 0 },
        text: { field: "txt", type: "nominal" },
      },
    });
  }
  if (banded) {
    layers.push({
      transform: [filterKind("ts"), { filter: { field: "lo", valid: true } }],
      mark: { type: "area", opacity: 0.18 },
      encoding: { x, y: { field: "lo", type: "quantitative", title: yTitle }, y2: { field: "hi" }, color },
    });
  }
  const seriesEncoding = {
    x,
    y: { field: "y", type: "quantitative", title: yTitle },
    color,
    tooltip: [
      { field: "c", title: "case" },
      { field: "t", title: "t (s)" },
      { field: "y", title: yTitle },
    ],
  };
  layers.push({
    transform: [filterKind("ts")],
    mark: { type: "line", strokeWidth: 1.5, interpolate: "linear" },
    encoding: seriesEncoding,
  });
  // Small points on the line: a series of one time bin (a short GET) has no line to draw.
  layers.push({
    transform: [filterKind("ts")],
    mark: { type: "point", filled: true, size: 12, opacity: 1 },
    encoding: seriesEncoding,
  });
  if (limits.rows.length > 0) layers.push(...limitLayers());
  const title = request.title ?? `${view.name}: ${METRIC_TITLE[metric]} over time`;
  const allRows = [...steadyRows, ...rows, ...limits.rows];
  return {
    id,
    kind: "timeseries",
    workload: view.name,
    title,
    caption,
    points: allRows.length,
    spec: compose({
      title,
      ...(view.description && { subtitle: view.description }),
      rows: allRows,
      layers,
      ...(facetDims.length > 0 && { facet: { title: facetDims.join(" · "), order: facetOrder } }),
    }),
  };
}

export const seriesMetricFor = (view: WorkloadView): "throughput" | "iops" =>
  view.entries.every((e) => e.c.op.startsWith("rand")) ? "iops" : "throughput";
