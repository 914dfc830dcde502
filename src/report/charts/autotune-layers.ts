/**
 * An autotune chart's marks: one line of rounds per case on a log₂ axis of the tuned parameter, the
 * rounds' CI whiskers, the knee as a dashed rule with a diamond and its label, and the limits.
 */
import { METRIC_INFO } from "../../rows/metrics.js";
import type { AutotuneData } from "./autotune-data.js";
import { filterKind, metricAxisTitle, type VlSpec } from "./common.js";
import { limitLayers } from "./limits.js";

interface Encodings {
  x: VlSpec;
  y: VlSpec;
  yTitle: string;
  color: VlSpec;
}

function roundsLayer(data: AutotuneData, enc: Encodings): VlSpec {
  return {
    transform: [filterKind("m")],
    mark: { type: "line", point: { filled: true, size: 40 } },
    encoding: {
      x: enc.x,
      y: enc.y,
      color: enc.color,
      tooltip: [
        { field: "c", title: "case" },
        { field: "x", title: data.param },
        { field: "v", title: `median ${METRIC_INFO[data.metric].title}` },
        { field: "g", title: data.bound ? "the bound" : "gain over the previous round" },
        { field: "n", title: "repetitions" },
      ],
    },
  };
}

function whiskerLayer(enc: Encodings): VlSpec {
  return {
    transform: [filterKind("m"), { filter: { field: "lo", valid: true } }],
    mark: { type: "rule" },
    encoding: {
      x: enc.x,
      // The same title as the other layers' y: Vega-Lite joins differing titles into one long one.
      y: { field: "lo", type: "quantitative", title: enc.y.title },
      y2: { field: "hi" },
      color: enc.color,
    },
  };
}

function kneeLayers(enc: Encodings): VlSpec[] {
  return [
    {
      transform: [filterKind("knee")],
      mark: { type: "rule", strokeDash: [2, 2], color: "#555" },
      encoding: { x: enc.x },
    },
    {
      transform: [filterKind("knee")],
      mark: { type: "point", shape: "diamond", size: 160, filled: true, color: "#111" },
      encoding: { x: enc.x, y: enc.y, tooltip: [{ field: "lab", title: "autotune" }] },
    },
    {
      transform: [filterKind("knee")],
      mark: { type: "text", align: "left", dx: 6, dy: -10, fontWeight: "bold" },
      encoding: {
        x: enc.x,
        y: { field: "y", type: "quantitative" },
        text: { field: "lab", type: "nominal" },
      },
    },
  ];
}

/** The bound rule's bound: a dashed horizontal rule, labelled. */
function boundLayer(enc: Encodings): VlSpec {
  return {
    transform: [filterKind("bound")],
    layer: [
      { mark: { type: "rule", strokeDash: [6, 3], color: "#c0392b" }, encoding: { y: enc.y } },
      {
        mark: { type: "text", align: "left", baseline: "bottom", x: 4, dy: -2, color: "#c0392b" },
        encoding: { y: enc.y, text: { field: "lab", type: "nominal" } },
      },
    ],
  };
}

export function autotuneLayers(data: AutotuneData, options: { limits: readonly VlSpec[] }): VlSpec[] {
  const yTitle = metricAxisTitle(data.metric, data.unit);
  const param = data.param === "rate" ? "rate (operations/s)" : data.param;
  const enc: Encodings = {
    // The bound rule bisects: its tried values are too many and too close for a tick each.
    x: data.bound
      ? { field: "x", type: "quantitative", title: `${param} (log scale)`, scale: { type: "log" } }
      : {
          field: "x",
          type: "quantitative",
          title: `${param} (log₂ scale)`,
          scale: { type: "log", base: 2 },
          axis: { values: data.tried, format: "d" },
        },
    // Latency past the knee grows by orders of magnitude: a log axis keeps the bound readable.
    y: {
      field: "y",
      type: "quantitative",
      title: yTitle,
      ...(data.bound && { scale: { type: "log" }, title: `${yTitle} (log scale)` }),
    },
    yTitle,
    color: { field: "c", type: "nominal", title: "case" },
  };
  return [
    roundsLayer(data, enc),
    ...(data.rows.some((r) => r.lo !== undefined) ? [whiskerLayer(enc)] : []),
    ...kneeLayers(enc),
    ...(data.bound ? [boundLayer(enc)] : []),
    ...limitLayers(options.limits),
  ];
}
