/**
 * Latency percentiles (p50, p90, p99, p99.9) per case: the swept parameter on x, one line per percentile,
 * the other dimensions as facets; log scale, medians over the repetitions.
 */
import { PERCENTILES } from "../../rows/metrics.js";
import { formatMetric } from "../format.js";
import { dimLabel, dimOrder, type Entry, type WorkloadView } from "../view.js";
import { engineReport } from "../../engines/index.js";
import {
  filterKind,
  ordinalX,
  round,
  unitFor,
  type Chart,
  type ChartContext,
  type VlSpec,
} from "./common.js";
import { panelChart } from "./compose.js";
import { limitLayers, limitRows } from "./limits.js";
import { panelsCaption, panelsOf } from "./panels.js";
import { maxOf } from "../../rows/stats.js";

export interface LatencyRequest {
  x?: string;
  facets: string[];
  title?: string;
}

export const hasPercentiles = (e: Entry) => PERCENTILES.some((p) => e.c.metrics[p] !== undefined);

const sourceKind = (engine: string) => engineReport(engine)?.latency.kind;

/** Where the percentiles come from, per engine of the cases drawn (and the cases the chart leaves out). */
export function latencySources(view: WorkloadView, shown: readonly Entry[]): string {
  const engines = [...new Set(shown.map((e) => e.c.engine))].sort();
  const parts: string[] = [];
  for (const engine of engines) {
    const latency = engineReport(engine)?.latency;
    if (latency?.kind === "tool") parts.push(`${engine}: ${latency.text}.`);
  }
  const timed = engines.filter((e) => sourceKind(e) === "per-operation");
  if (timed.length > 0) {
    const ttfb = view.entries.some(
      (e) => sourceKind(e.c.engine) === "per-operation" && e.c.ttfb !== undefined,
    );
    const openLoop = view.entries.some(
      (e) => sourceKind(e.c.engine) === "per-operation" && e.c.params.rate !== undefined,
    );
    parts.push(
      `${timed.join(" and ")}: per-operation latency measured by the engine (from sending a request to the end of its response${openLoop ? "; at a rate, from the instant each request was due: its response time" : ""})${ttfb ? "; time to first byte of reads is in the case table, not here" : ""}.`,
    );
  }
  const others = engines.filter((e) => sourceKind(e) !== "tool" && sourceKind(e) !== "per-operation");
  if (others.length > 0) parts.push(`${others.join(", ")}: latency as the result rows report it.`);
  const undrawn = [...new Set(view.entries.map((e) => e.c.engine))].filter((e) => sourceKind(e) === "none");
  for (const engine of undrawn.sort())
    parts.push(`${engine} reports no per-operation latency: its cases are not drawn.`);
  return parts.join(" ");
}

export function latencyChart(
  view: WorkloadView,
  request: LatencyRequest,
  ctx: ChartContext,
  id: string,
): Chart | undefined {
  const entries = view.entries.filter(hasPercentiles);
  if (entries.length === 0) return undefined;
  const xDim = request.x ?? "case";
  const facetDims = request.facets;
  const panels = panelsOf(entries, facetDims);
  const { shown } = panels;
  const caption: string[] = panelsCaption(panels);
  const values = shown.flatMap((e) =>
    PERCENTILES.flatMap((p) => (e.c.metrics[p] ? [e.c.metrics[p]!.median] : [])),
  );
  const unit = unitFor("p99", values);
  const rows: VlSpec[] = [];
  for (const e of shown) {
    for (const p of PERCENTILES) {
      const s = e.c.metrics[p];
      if (!s || !(s.median > 0)) continue;
      rows.push({
        k: "m",
        x: dimLabel(e, xDim),
        c: p,
        ...panels.field(e),
        y: round(s.median / unit.factor),
        case: e.c.id,
        v: formatMetric("time", s.median),
        n: s.n,
      });
    }
  }
  if (rows.length === 0) return undefined;
  const limits = limitRows(ctx.limits, "p99", unit, maxOf(values), panels.limitFacets);
  caption.unshift(
    `Latency percentiles, the median over the repetitions; logarithmic scale. ${latencySources(view, shown)}`,
  );
  caption.push(...limits.caption);
  const xOrder = dimOrder(shown, xDim);
  // Lines between categories (ops, targets) would suggest a trend that is not there.
  const categorical = ["case", "op", "target", "engine", "run"].includes(xDim) || xOrder.length < 2;
  const yTitle = `latency (${unit.unit}, log scale)`;
  const layers: VlSpec[] = [
    {
      transform: [filterKind("m")],
      mark: categorical
        ? { type: "point", filled: true, size: 60 }
        : { type: "line", point: { filled: true, size: 36 } },
      encoding: {
        x: ordinalX(xDim, xOrder),
        y: { field: "y", type: "quantitative", title: yTitle, scale: { type: "log" } },
        color: {
          field: "c",
          type: "ordinal",
          title: "percentile",
          sort: [...PERCENTILES],
          scale: { scheme: "orangered" },
        },
        tooltip: [
          { field: "case", title: "case" },
          { field: "c", title: "percentile" },
          { field: "v", title: "median" },
          { field: "n", title: "repetitions" },
        ],
      },
    },
  ];
  layers.push(...limitLayers(limits.rows));
  const title = request.title ?? `${view.name}: latency percentiles`;
  return panelChart(id, "latency", view, {
    title,
    caption,
    rows: [...rows, ...limits.rows],
    layers,
    panels,
  });
}
