/**
 * Throughput per process, for cases whose repetitions ran several processes at once (dd's `parallel`):
 * per case a box of the processes' throughputs pooled over the repetitions — whisker from the slowest to
 * the fastest process, box from the first to the third quartile, a tick at the median — on the sweep
 * chart's x, colour and facets. On shared storage the spread says whether every writer got its share.
 */
import { METRIC_INFO } from "../../rows/metrics.js";
import { formatMetric } from "../format.js";
import { dimLabel, dimOrder, type Entry, type Layout, type WorkloadView } from "../view.js";
import { axisTitle, filterKind, ordinalX, round, unitFor } from "./common.js";
import type { ChartContext, VlSpec } from "./common.js";
import { panelChart } from "./compose.js";
import { limitLayers, limitRows } from "./limits.js";
import { panelsCaption, panelsOf } from "./panels.js";
import { maxOf } from "../../rows/stats.js";

const hasProcesses = (e: Entry) => e.c.processes !== undefined;

export function processesChart(view: WorkloadView, layout: Layout, ctx: ChartContext, id: string) {
  const entries = view.entries.filter(hasProcesses);
  if (entries.length === 0) return undefined;
  const xDim = layout.x ?? "case";
  const panels = panelsOf(entries, layout.facets);
  const { shown } = panels;
  const unit = unitFor(
    "throughput",
    shown.map((e) => e.c.processes!.max),
  );
  const max = maxOf(shown.map((e) => e.c.processes!.max));
  const rows: VlSpec[] = shown.map((e) => {
    const p = e.c.processes!;
    const scaled = (v: number) => round(v / unit.factor);
    return {
      k: "m",
      x: dimLabel(e, xDim),
      ...(layout.color && { c: dimLabel(e, layout.color) }),
      ...panels.field(e),
      lo: scaled(p.min),
      q1: scaled(p.q1),
      y: scaled(p.median),
      q3: scaled(p.q3),
      hi: scaled(p.max),
      case: e.c.id,
      n: p.n,
      range: `${formatMetric("throughput", p.min)} … ${formatMetric("throughput", p.max)}`,
      median: formatMetric("throughput", p.median),
      quartiles: `${formatMetric("throughput", p.q1)} … ${formatMetric("throughput", p.q3)}`,
    };
  });
  const limits = limitRows(ctx.limits, "throughput", unit, max, panels.limitFacets);
  const xOrder = dimOrder(entries, xDim);
  const colorOrder = layout.color ? dimOrder(entries, layout.color) : [];
  const yTitle = `${METRIC_INFO.throughput.title} per process (${unit.unit})`;
  const x = ordinalX(xDim, xOrder);
  const place = {
    x,
    ...(layout.color && {
      xOffset: { field: "c", type: "nominal", sort: colorOrder },
      color: { field: "c", type: "nominal", title: axisTitle(layout.color), sort: colorOrder },
    }),
  };
  const tooltip = [
    { field: "case", title: "case" },
    { field: "n", title: "processes × repetitions" },
    { field: "median", title: "median" },
    { field: "quartiles", title: "middle half" },
    { field: "range", title: "slowest … fastest" },
  ];
  const layers: VlSpec[] = [
    {
      transform: [filterKind("m")],
      mark: { type: "rule", size: 1.2 },
      encoding: { ...place, y: { field: "lo", type: "quantitative", title: yTitle }, y2: { field: "hi" } },
    },
    {
      transform: [filterKind("m")],
      mark: { type: "bar", size: 12, ...(layout.color ? {} : { color: "#4c78a8" }) },
      encoding: { ...place, y: { field: "q1", type: "quantitative" }, y2: { field: "q3" }, tooltip },
    },
    {
      transform: [filterKind("m")],
      mark: { type: "tick", color: "#fff", size: 12, thickness: 2 },
      encoding: {
        x,
        ...(layout.color && { xOffset: place.xOffset }),
        y: { field: "y", type: "quantitative" },
      },
    },
    ...limitLayers(limits.rows),
  ];
  const title = `${view.name}: ${METRIC_INFO.throughput.title} per process`;
  return panelChart(id, "processes", view, {
    title,
    caption: [
      "Each box: the throughput of every process of the case's measured repetitions (bytes that process moved over its own time). Whisker: slowest to fastest process; box: the middle half; white tick: the median.",
      ...panelsCaption(panels),
      ...limits.caption,
    ],
    rows: [...rows, ...limits.rows],
    layers,
    panels,
  });
}
