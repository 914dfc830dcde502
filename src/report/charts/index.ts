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
import type { Chart, ChartContext, VlSpec } from "./common.js";
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
  return { charts: numberCharts(charts), notes };
}

/**
 * Ids in page order, without the gaps of charts that had nothing to draw; specs made safe for Vega's
 * expressions. Again after charts are added (the host telemetry under time series): it is idempotent.
 */
export function numberCharts(charts: Chart[]): Chart[] {
  charts.forEach((chart, index) => {
    chart.id = `chart-${index + 1}`;
    chart.spec = expressionSafe(chart.spec) as VlSpec;
    if (chart.image) chart.image = expressionSafe(chart.image) as VlSpec;
  });
  return charts;
}

/**
 * Vega-Lite writes data values into expressions of its own (a custom sort order becomes
 * `indexof([…], datum.c)`), and Vega's expression parser refuses a raw line terminator inside a string
 * literal. So in the data and in sort orders and domains — the same way in each, so they still match — a
 * line break, U+2028 or U+2029 is shown as its escape (`\u2028`). Titles are text, not expressions: kept.
 */
function expressionSafe(value: unknown, inData = false): unknown {
  if (typeof value === "string") return inData ? value.replace(LINE_TERMINATORS, escapeTerminator) : value;
  if (Array.isArray(value)) return value.map((item) => expressionSafe(item, inData));
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      expressionSafe(item, inData || key === "values" || key === "sort" || key === "domain"),
    ]),
  );
}

const LINE_TERMINATORS = /[\n\r\u2028\u2029]/g;
const escapeTerminator = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
