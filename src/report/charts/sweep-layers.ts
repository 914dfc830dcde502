/**
 * A sweep chart's marks: bars, lines or points of the means, their CI whiskers, the expect bounds as
 * triangles and crosses, and the limits; all on one x (ordinal) and y (the metric in its display unit).
 */
import { X_PRIORITY } from "../view.js";
import { axisTitle, filterKind, metricAxisTitle, ordinalX, type VlSpec } from "./common.js";
import { limitLayers } from "./limits.js";
import type { SweepData, SweepRequest } from "./sweep-data.js";

export type SweepMark = NonNullable<SweepRequest["mark"]>;

/** The numeric parameters: a sweep of them reads as a trend. */
const NUMERIC_SWEEPS = new Set(X_PRIORITY);

/** Lines for a numeric sweep of five or more values, bars otherwise (unless the request says). */
export const sweepMark = (request: SweepRequest, data: SweepData): SweepMark =>
  request.mark ?? (NUMERIC_SWEEPS.has(data.xDim) && data.xOrder.length >= 5 ? "line" : "bar");

/** Bars side by side per x value, one per colour. */
export const isGrouped = (mark: SweepMark, request: SweepRequest) =>
  mark === "bar" && request.color !== undefined;

interface Encodings {
  x: VlSpec;
  /** The position of a colour's bar within its group. */
  offset: VlSpec;
  color?: VlSpec;
  yTitle: string;
}

function encodings(request: SweepRequest, data: SweepData, grouped: boolean): Encodings {
  const { xOrder, colorOrder } = data;
  return {
    x: ordinalX(data.xDim, xOrder),
    offset: grouped ? { xOffset: { field: "c", type: "nominal", sort: colorOrder } } : {},
    ...(request.color && {
      color: { field: "c", type: "nominal", title: axisTitle(request.color), sort: colorOrder },
    }),
    yTitle: metricAxisTitle(request.y, data.unit),
  };
}

function measuredLayer(mark: SweepMark, enc: Encodings, multiRun: boolean): VlSpec {
  const markSpec =
    mark === "bar"
      ? { type: "bar", ...(enc.color ? {} : { color: "#4c78a8" }) }
      : mark === "line"
        ? { type: "line", point: { filled: true, size: 40 } }
        : { type: "point", filled: true, size: 60 };
  return {
    transform: [filterKind("m")],
    mark: markSpec,
    encoding: {
      x: enc.x,
      ...enc.offset,
      y: { field: "y", type: "quantitative", title: enc.yTitle },
      ...(enc.color && { color: enc.color }),
      tooltip: [
        { field: "case", title: "case" },
        ...(multiRun ? [{ field: "run", title: "run" }] : []),
        { field: "mean", title: "mean" },
        { field: "median", title: "median" },
        { field: "ci", title: "95% CI of the mean" },
        { field: "n", title: "repetitions" },
        { field: "cv", title: "CV" },
      ],
    },
  };
}

function whiskerLayer(enc: Encodings, grouped: boolean): VlSpec {
  return {
    transform: [filterKind("m"), { filter: { field: "lo", valid: true } }],
    mark: { type: "rule", size: 1.2 },
    encoding: {
      x: enc.x,
      ...enc.offset,
      y: { field: "lo", type: "quantitative", title: enc.yTitle },
      y2: { field: "hi" },
      ...(enc.color && !grouped ? { color: enc.color } : { color: { value: "#222" } }),
    },
  };
}

function boundLayer(enc: Encodings): VlSpec {
  return {
    transform: [filterKind("e")],
    mark: { type: "point", filled: true, size: 90, color: "#111", opacity: 0.9 },
    encoding: {
      x: enc.x,
      ...enc.offset,
      y: { field: "y", type: "quantitative", title: enc.yTitle },
      shape: {
        field: "st",
        type: "nominal",
        title: "expect",
        scale: { domain: ["pass", "fail"], range: ["triangle-up", "cross"] },
      },
      tooltip: [{ field: "lab", title: "expectation" }],
    },
  };
}

/** The layers for what the data holds: whiskers only with a CI, bounds and limits only when there are any. */
export function sweepLayers(
  request: SweepRequest,
  data: SweepData,
  options: { mark: SweepMark; grouped: boolean; multiRun: boolean; limits: readonly VlSpec[] },
): VlSpec[] {
  const enc = encodings(request, data, options.grouped);
  return [
    measuredLayer(options.mark, enc, options.multiRun),
    ...(data.measured.some((r) => r.lo !== undefined) ? [whiskerLayer(enc, options.grouped)] : []),
    ...(data.bounds.length > 0 ? [boundLayer(enc)] : []),
    ...limitLayers(options.limits),
  ];
}
