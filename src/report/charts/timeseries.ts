/**
 * Throughput or IOPS over time (WSAT-style, upload-over-time-style): one line per case, the mean of each
 * time bin over the repetitions, with the min–max band of the bin; fio's steady-state windows shaded.
 */
import { METRIC_INFO } from "../../rows/metrics.js";
import type { WorkloadView } from "../view.js";
import type { Chart, ChartContext } from "./common.js";
import { compose } from "./compose.js";
import { limitRows, targetPlaces } from "./limits.js";
import { panelsCaption } from "./panels.js";
import { timeseriesData, type TimeseriesData, type TimeseriesRequest } from "./timeseries-data.js";
import { timeseriesLayers } from "./timeseries-layers.js";

export function timeseriesChart(
  view: WorkloadView,
  request: TimeseriesRequest,
  ctx: ChartContext,
  id: string,
): Chart | undefined {
  const data = timeseriesData(view, request);
  if (!data) return undefined;
  const { panels } = data;
  const limits = limitRows(
    ctx.limits,
    request.y,
    data.unit,
    data.max,
    panels.limitFacets,
    targetPlaces(panels.shown, panels.field, data.colorOf, data.colorOrder),
  );
  const title =
    request.title ??
    `${view.name}: ${METRIC_INFO[request.y].title} ${request.x === "written" ? "by data written" : "over time"}`;
  const rows = [...data.steady, ...data.points, ...limits.rows];
  return {
    id,
    kind: "timeseries",
    workload: view.name,
    title,
    caption: [...timeseriesCaption(data, request), ...limits.caption],
    points: rows.length,
    // The host telemetry under it is on each repetition's clock: not under a chart on the workload's.
    ...(!request.x && { seriesCases: data.cases }),
    spec: compose({
      title,
      ...(view.description && { subtitle: view.description }),
      rows,
      layers: timeseriesLayers(request, data, { limits: limits.rows }),
      ...(panels.facet && { facet: panels.facet }),
    }),
  };
}

const TIMELINE_CAPTIONS = {
  elapsed:
    "Lines and points: each measured repetition's samples, placed by the instant it started: x is the seconds since the workload's first repetition on the target started, so idle time between repetitions shows as a gap.",
  written:
    "Lines and points: each measured repetition's samples, in the order they were taken: x is the GiB the workload had written to the target by then, since its first repetition there started (each sample's write throughput × its interval, summed over its cases on that target).",
} as const;

function timeseriesCaption(data: TimeseriesData, request: TimeseriesRequest): string[] {
  return [
    request.x
      ? TIMELINE_CAPTIONS[request.x]
      : data.repetitions > 1
        ? `Lines and points: the mean of each time bin over ${data.repetitions} repetitions; band: their minimum and maximum.`
        : "Lines and points: the measured samples (time bins when there are many).",
    ...panelsCaption(data.panels),
    ...(data.steady.length > 0
      ? [
          "Green areas: the window in which fio checked its steady-state criterion (the last window before it stopped the job).",
        ]
      : []),
  ];
}

export const seriesMetricFor = (view: WorkloadView): "throughput" | "iops" =>
  view.entries.every((e) => e.c.op.startsWith("rand")) ? "iops" : "throughput";
