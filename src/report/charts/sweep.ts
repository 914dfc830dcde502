/**
 * The main chart of a workload: a metric across the swept parameter (x), grouped by colour, faceted by
 * the remaining dimensions. Bars (or lines) are the mean over repetitions, whiskers its 95% confidence
 * interval; limits are dashed rules; expect bounds are markers on their case, shaped by pass/fail.
 */
import { METRIC_INFO } from "../../rows/metrics.js";
import type { Chart, ChartContext } from "./common.js";
import { compose } from "./compose.js";
import { dimLabel, type WorkloadView } from "../view.js";
import { limitRows, targetPlaces } from "./limits.js";
import { panelsCaption } from "./panels.js";
import { sweepData, type SweepData, type SweepRequest } from "./sweep-data.js";
import { isGrouped, sweepLayers, sweepMark, type SweepMark } from "./sweep-layers.js";

export function sweepChart(
  view: WorkloadView,
  request: SweepRequest,
  ctx: ChartContext,
  id: string,
): Chart | undefined {
  const data = sweepData(view, request);
  if (!data) return undefined;
  const { panels } = data;
  const color = request.color;
  const limits = limitRows(
    ctx.limits,
    request.y,
    data.unit,
    data.max,
    panels.limitFacets,
    targetPlaces(panels.shown, panels.field, color ? (e) => dimLabel(e, color) : undefined, data.colorOrder),
  );
  const mark = sweepMark(request, data);
  const grouped = isGrouped(mark, request);
  const layers = sweepLayers(request, data, {
    mark,
    grouped,
    multiRun: ctx.runs.length > 1,
    limits: limits.rows,
  });
  const title =
    request.title ?? `${view.name}: ${METRIC_INFO[request.y].title}${request.x ? ` by ${request.x}` : ""}`;
  const rows = [...data.measured, ...data.bounds, ...limits.rows];
  return {
    id,
    kind: "sweep",
    workload: view.name,
    title,
    caption: [...sweepCaption(request.mark, data), ...limits.caption],
    points: rows.length,
    spec: compose({
      title,
      ...(view.description && { subtitle: view.description }),
      rows,
      layers,
      ...(panels.facet && { facet: panels.facet }),
      ...(grouped && !panels.facet && { width: groupedWidth(data) }),
    }),
  };
}

function sweepCaption(mark: SweepMark | undefined, data: SweepData): string[] {
  return [
    `${mark === "line" || mark === "point" ? "Points" : "Bars"}: mean over the measured repetitions; whiskers: 95% confidence interval of the mean (needs 2 or more repetitions).`,
    ...panelsCaption(data.panels),
    ...(data.bounds.length > 0
      ? [
          "Triangles (pass) and crosses (fail): the bounds of the spec's expect assertions, on the case they check.",
        ]
      : []),
  ];
}

/** Wide enough for every group of bars, within the page. */
const groupedWidth = (data: SweepData) =>
  Math.min(760, Math.max(420, data.xOrder.length * (data.colorOrder.length * 16 + 16)));
