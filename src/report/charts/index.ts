/**
 * Choosing a report's charts from the shape of its data:
 *   1. group every run's cases by workload and find the dimensions that vary (view.ts)
 *   2. per workload: the charts the spec's `report.charts` asks for, or else the default layout —
 *      a sweep chart (swept parameter on x, target/op/run as colour, the rest as facets), latency
 *      percentiles where measured, a time series where sampled, autotune rounds where tuned
 *   3. across workloads: expect results, and the comparison of two runs when asked for
 * Builders live one per file, registered by kind.
 */
import type { Metric } from "../../spec/schema.js";
import { chooseLayout, workloadViews, type WorkloadView } from "../view.js";
import { autotuneChart } from "./autotune.js";
import type { Chart, ChartContext } from "./common.js";
import { compareChart } from "./compare.js";
import { expectChart } from "./expect.js";
import { hasPercentiles, latencyChart } from "./latency.js";
import { mergedLimits } from "./limits.js";
import { mergedRequests, requestedChart } from "./requests.js";
import { sweepChart } from "./sweep.js";
import { seriesOf } from "./timeseries-data.js";
import { seriesMetricFor, timeseriesChart } from "./timeseries.js";

export type { Chart, ChartContext } from "./common.js";

/** Beyond this many series a time-series chart is faceted by the swept parameter. */
const MAX_SERIES_COLORS = 10;

export function buildCharts(ctx: Omit<ChartContext, "limits">): { charts: Chart[]; notes: string[] } {
  const full: ChartContext = { ...ctx, limits: mergedLimits(ctx.runs) };
  const charts: Chart[] = [];
  const notes: string[] = [];
  let next = 1;
  const id = () => `chart-${next++}`;
  const add = (chart: Chart | undefined) => chart && charts.push(chart);
  const requests = mergedRequests(ctx);

  for (const view of workloadViews(ctx.runs)) {
    const layout = chooseLayout(view.dims);
    const asked = requests.filter((r) => r.workload === view.name);
    const askedTime = asked.some((r) => r.x === "time");
    const askedSweep = asked.some((r) => r.x !== "time");
    for (const request of asked) {
      const chart = requestedChart(view, request, full, id, notes);
      if (chart) charts.push(chart);
    }
    const series = view.entries.filter((e) => seriesOf(e)).length;
    // A single case with a time series (WSAT) says everything in its series; one bar would add nothing.
    const seriesOnly = view.entries.length === 1 && series === 1;
    if (!askedSweep && !seriesOnly) {
      const metric = primaryMetric(view);
      if (metric)
        add(
          sweepChart(
            view,
            {
              ...(layout.x && { x: layout.x }),
              y: metric,
              ...(layout.color && { color: layout.color }),
              facets: layout.facets,
            },
            full,
            id(),
          ),
        );
    }
    if (view.entries.some(hasPercentiles)) {
      const facets = [layout.color, ...layout.facets].filter((d): d is string => d !== undefined);
      add(latencyChart(view, { ...(layout.x && { x: layout.x }), facets }, full, id()));
    }
    if (!askedTime && series > 0) {
      // With fio steady-state windows: one panel per case, its window shaded (as SNIA PTS plots them).
      const steady = view.entries.some((e) => e.run.steady.some((w) => w.case === e.c.id));
      const facets = steady ? view.dims : series > MAX_SERIES_COLORS && layout.x ? [layout.x] : [];
      add(timeseriesChart(view, { y: seriesMetricFor(view), facets }, full, id()));
    }
    add(autotuneChart(view, full, id()));
  }
  add(expectChart(full, id()));
  if (ctx.comparison) add(compareChart(ctx.comparison, id()));
  // Ids in page order, without the gaps of charts that had nothing to draw.
  charts.forEach((chart, index) => (chart.id = `chart-${index + 1}`));
  return { charts, notes };
}

const RANDOM_OPS = new Set(["randread", "randwrite", "randrw"]);

/** IOPS for small random I/O, throughput otherwise; whatever was measured when that was not. */
export function primaryMetric(view: WorkloadView): Metric | undefined {
  const small = view.entries.every(
    (e) => RANDOM_OPS.has(e.c.op) && !(typeof e.c.params.bs === "number" && e.c.params.bs > 64 * 1024),
  );
  const preferred: Metric[] = small ? ["iops", "throughput", "seconds"] : ["throughput", "iops", "seconds"];
  return preferred.find((m) =>
    view.entries.some((e) => e.c.metrics[m] !== undefined && (m === "seconds" || e.c.metrics[m]!.max > 0)),
  );
}
