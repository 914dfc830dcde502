/**
 * A workload's charts when its spec asks for none of their kind: a sweep chart of its primary metric,
 * the throughput per process where repetitions ran several, latency percentiles where measured (and per size class where sizes were drawn), a time series where sampled (and per host, for cases run on several), autotune rounds where tuned.
 */
import type { Metric } from "../../spec/schema.js";
import type { ChartRequest } from "../model.js";
import { chooseLayout, type WorkloadView } from "../view.js";
import { autotuneChart } from "./autotune.js";
import type { Chart, ChartContext } from "./common.js";
import { hostsChart } from "./hosts.js";
import { hasPercentiles, latencyChart } from "./latency.js";
import { processesChart } from "./processes.js";
import { roundsCharts } from "./rounds.js";
import { sizesChart } from "./sizes.js";
import { largestSize, type SizeParam } from "../../rows/sizes.js";
import { sweepChart } from "./sweep.js";
import { SERIES_AXES } from "../../spec/words.js";
import { seriesOf } from "./timeseries-data.js";
import { seriesMetricFor, timeseriesChart } from "./timeseries.js";

/** Beyond this many series a time-series chart is faceted by the swept parameter. */
const MAX_SERIES_COLORS = 10;

/**
 * `asked`: the workload's own `report.charts`; a sweep or time series (on any clock) asked for replaces the
 * default one.
 */
export function defaultCharts(
  view: WorkloadView,
  asked: readonly ChartRequest[],
  ctx: ChartContext,
  id: () => string,
): (Chart | undefined)[] {
  const layout = chooseLayout(view.dims);
  const charts: (Chart | undefined)[] = [];
  const series = view.entries.filter((e) => seriesOf(e)).length;
  // A single case with a time series (WSAT) says everything in its series; one bar would add nothing.
  const seriesOnly = view.entries.length === 1 && series === 1;
  const metric = primaryMetric(view);
  const isSeries = (r: ChartRequest) => (SERIES_AXES as readonly string[]).includes(r.x);
  if (!asked.some((r) => !isSeries(r)) && !seriesOnly && metric) {
    charts.push(
      sweepChart(
        view,
        {
          ...(layout.x && { x: layout.x }),
          y: metric,
          ...(layout.color && { color: layout.color }),
          facets: layout.facets,
        },
        ctx,
        id(),
      ),
    );
  }
  // Several processes per repetition (dd's parallel): how the throughput was shared among them.
  charts.push(processesChart(view, layout, ctx, id()));
  if (view.entries.some(hasPercentiles)) {
    const facets = [layout.color, ...layout.facets].filter((d): d is string => d !== undefined);
    charts.push(latencyChart(view, { ...(layout.x && { x: layout.x }), facets }, ctx, id()));
  }
  // Sizes drawn from a distribution: latency per size class.
  charts.push(sizesChart(view, id()));
  if (!asked.some(isSeries) && series > 0) {
    // With fio steady-state windows: one panel per case, its window shaded (as SNIA PTS plots them).
    const steady = view.entries.some((e) => e.run.steady.some((w) => w.case === e.c.id));
    const facets = steady ? view.dims : series > MAX_SERIES_COLORS && layout.x ? [layout.x] : [];
    charts.push(timeseriesChart(view, { y: seriesMetricFor(view), facets }, ctx, id()));
  }
  // Cases run on several hosts: each host's series beside their sum.
  charts.push(hostsChart(view, seriesMetricFor(view), id()));
  charts.push(autotuneChart(view, ctx, id()));
  // Workloads run in rounds: the convergence and measurement-window plots.
  charts.push(...roundsCharts(view, id));
  return charts;
}

const RANDOM_OPS = new Set(["randread", "randwrite", "randrw"]);

/** IOPS for small random I/O, throughput otherwise; whatever was measured when that was not. */
export function primaryMetric(view: WorkloadView): Metric | undefined {
  const small = view.entries.every(
    (e) =>
      RANDOM_OPS.has(e.c.op) &&
      !(e.c.params.bs !== undefined && largestSize(e.c.params.bs as SizeParam) > 64 * 1024),
  );
  const preferred: Metric[] = small ? ["iops", "throughput", "seconds"] : ["throughput", "iops", "seconds"];
  return preferred.find((m) =>
    view.entries.some((e) => e.c.metrics[m] !== undefined && (m === "seconds" || e.c.metrics[m]!.max > 0)),
  );
}
