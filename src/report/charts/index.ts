/**
 * Choosing a report's charts from the shape of its data:
 *   1. group every run's cases by workload and find the dimensions that vary (view.ts)
 *   2. per workload: the charts the spec's `report.charts` asks for, or else the default layout —
 *      a sweep chart (swept parameter on x, target/op/run as colour, the rest as facets), latency
 *      percentiles where measured, a time series where sampled, autotune rounds where tuned
 *   3. across workloads: expect results, and the comparison of two runs when asked for
 * One builder per kind: <kind>.ts assembles the chart, <kind>-data.ts turns cases into its rows and
 * <kind>-layers.ts holds its marks and encodings (defaults.ts and requests.ts choose which to build).
 */
import { workloadViews } from "../view.js";
import type { Chart, ChartContext } from "./common.js";
import { compareChart } from "./compare.js";
import { defaultCharts } from "./defaults.js";
import { expectChart } from "./expect.js";
import { mergedLimits } from "./limits.js";
import { mergedRequests, requestedChart } from "./requests.js";

export type { Chart, ChartContext } from "./common.js";

export function buildCharts(ctx: Omit<ChartContext, "limits">): { charts: Chart[]; notes: string[] } {
  const full: ChartContext = { ...ctx, limits: mergedLimits(ctx.runs) };
  const notes: string[] = [];
  let next = 1;
  const id = () => `chart-${next++}`;
  const requests = mergedRequests(ctx);
  const charts = [
    ...workloadViews(ctx.runs).flatMap((view) => {
      const asked = requests.filter((r) => r.workload === view.name);
      return [
        ...asked.map((request) => requestedChart(view, request, full, id, notes)),
        ...defaultCharts(view, asked, full, id),
      ];
    }),
    expectChart(full, id()),
    ctx.comparison && compareChart(ctx.comparison, id()),
  ].filter((chart): chart is Chart => chart !== undefined);
  // Ids in page order, without the gaps of charts that had nothing to draw.
  charts.forEach((chart, index) => (chart.id = `chart-${index + 1}`));
  return { charts, notes };
}
