/** The charts a spec's `report.charts` asks for, with the dimensions it leaves out as colour or facets. */
import type { ChartRequest } from "../model.js";
import { SERIES_AXES } from "../../spec/words.js";
import { chooseLayout, type WorkloadView } from "../view.js";
import type { Chart, ChartContext } from "./common.js";
import { sweepChart } from "./sweep.js";
import type { TimelineAxis } from "./timeline-data.js";
import { timeseriesChart } from "./timeseries.js";

/** `report.charts` of every run, each distinct request once. */
export function mergedRequests(ctx: Omit<ChartContext, "limits">): ChartRequest[] {
  const seen = new Set<string>();
  const out: ChartRequest[] = [];
  for (const run of ctx.runs) {
    for (const request of run.plan.report.charts ?? []) {
      const key = JSON.stringify(request);
      if (!seen.has(key)) {
        seen.add(key);
        out.push(request);
      }
    }
  }
  return out;
}

export function requestedChart(
  view: WorkloadView,
  request: ChartRequest,
  ctx: ChartContext,
  id: () => string,
  notes: string[],
): Chart | undefined {
  const series = (SERIES_AXES as readonly string[]).includes(request.x);
  const used = [...(series ? [] : [request.x]), request.color, request.facet].filter(
    (d): d is string => d !== undefined && d !== "time",
  );
  // Dimensions the request leaves out would draw several cases on one spot: they become facets (or colour).
  const leftovers = view.dims.filter((d) => !used.includes(d));
  let color = request.color !== undefined && request.color !== "time" ? request.color : undefined;
  if (color === undefined && !series && leftovers.length > 0) color = chooseLayout(leftovers).color;
  // On the workload's clock (elapsed, written) every case shares one axis: no panels unless asked for.
  const timeline = series && request.x !== "time";
  const facets = [
    ...(request.facet && request.facet !== "time" ? [request.facet] : []),
    ...(timeline ? [] : leftovers.filter((d) => d !== color)),
  ];
  const label = `report.charts (${request.workload}: ${request.x} × ${request.y})`;
  if (series) {
    if (request.y !== "throughput" && request.y !== "iops") {
      notes.push(`${label}: time series hold throughput and IOPS only`);
      return undefined;
    }
    const chart = timeseriesChart(
      view,
      {
        y: request.y,
        ...(timeline && { x: request.x as TimelineAxis }),
        ...(color && { color }),
        facets,
        ...(request.title && { title: request.title }),
      },
      ctx,
      id(),
    );
    if (!chart) notes.push(`${label}: no time series was recorded (the workload needs \`sample\`)`);
    return chart;
  }
  const chart = sweepChart(
    view,
    {
      x: request.x,
      y: request.y,
      ...(color && { color }),
      facets,
      ...(request.mark && { mark: request.mark }),
      ...(request.title && { title: request.title }),
    },
    ctx,
    id(),
  );
  if (!chart) notes.push(`${label}: no case measured ${request.y}`);
  else if (leftovers.some((d) => d !== color && facets.includes(d))) {
    chart.caption.push(
      `Also varying, so drawn as panels: ${leftovers.filter((d) => d !== color).join(", ")}.`,
    );
  }
  return chart;
}
