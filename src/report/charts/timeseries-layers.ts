/**
 * A time-series chart's marks: the steady-state windows as shaded areas, the min–max band, the series as
 * lines with small points, and the limits.
 */
import { axisTitle, filterKind, metricAxisTitle, type VlSpec } from "./common.js";
import { limitLayers } from "./limits.js";
import type { TimeseriesData, TimeseriesRequest } from "./timeseries-data.js";

const STEADY_COLOR = "#2e7d32";
/** The x axis: each repetition's clock, or the workload's. */
const X_TITLES = {
  time: "time (s)",
  elapsed: "time since the workload's first repetition on the target (s)",
  written: "written to the target since the workload's first repetition there (GiB)",
} as const;
const xEncoding = (request: TimeseriesRequest) => ({
  field: "t",
  type: "quantitative",
  title: X_TITLES[request.x ?? "time"],
  scale: { zero: true },
});

function steadyLayers(): VlSpec[] {
  return [
    {
      transform: [filterKind("ss")],
      mark: { type: "rect", color: STEADY_COLOR, opacity: 0.15 },
      encoding: {
        x: { field: "t0", type: "quantitative", title: "time (s)" },
        x2: { field: "t1" },
        tooltip: [{ field: "lab", title: "fio" }],
      },
    },
    {
      transform: [filterKind("ss")],
      mark: { type: "text", color: STEADY_COLOR, align: "left", baseline: "top", dx: 3, dy: 3, fontSize: 10 },
      encoding: {
        x: { field: "t0", type: "quantitative" },
        y: { value: 0 },
        text: { field: "txt", type: "nominal" },
      },
    },
  ];
}

function bandLayer(x: VlSpec, yTitle: string, color: VlSpec): VlSpec {
  return {
    transform: [filterKind("ts"), { filter: { field: "lo", valid: true } }],
    mark: { type: "area", opacity: 0.18 },
    encoding: {
      x,
      y: { field: "lo", type: "quantitative", title: yTitle },
      y2: { field: "hi" },
      color,
    },
  };
}

/** The line, and small points on it: a series of one time bin (a short GET) has no line to draw. */
function seriesLayers(x: VlSpec, yTitle: string, color: VlSpec, timeline: boolean): VlSpec[] {
  const encoding = {
    x,
    y: { field: "y", type: "quantitative", title: yTitle },
    color,
    tooltip: [
      { field: "c", title: "case" },
      { field: "t", title: x.title },
      { field: "y", title: yTitle },
    ],
  };
  return [
    {
      transform: [filterKind("ts")],
      mark: { type: "line", strokeWidth: 1.5, interpolate: "linear" },
      // On the workload's clock, a line per case and repetition: none across the gap between two.
      encoding: timeline ? { ...encoding, detail: { field: "l", type: "nominal" } } : encoding,
    },
    { transform: [filterKind("ts")], mark: { type: "point", filled: true, size: 12, opacity: 1 }, encoding },
  ];
}

export function timeseriesLayers(
  request: TimeseriesRequest,
  data: TimeseriesData,
  options: { limits: readonly VlSpec[] },
): VlSpec[] {
  const yTitle = metricAxisTitle(request.y, data.unit);
  const x = xEncoding(request);
  const color = {
    field: "c",
    type: "nominal",
    title: data.colorDims.length > 0 ? data.colorDims.map(axisTitle).join(" · ") : "case",
    sort: data.colorOrder,
    legend: { symbolType: "stroke", symbolStrokeWidth: 2, symbolOpacity: 1 },
  };
  return [
    ...(data.steady.length > 0 ? steadyLayers() : []),
    ...(data.banded ? [bandLayer(x, yTitle, color)] : []),
    ...seriesLayers(x, yTitle, color, request.x !== undefined),
    ...limitLayers(options.limits),
  ];
}
