/**
 * What every chart builder shares: the chart type, Vega-Lite building blocks, limits as labelled rules.
 *
 * Safety: chart data use fixed, safe field names (x, c, f, y, lo, hi, …), so no user string is ever a
 * field name; user strings (titles, labels, target names) appear only as data values and title text,
 * which Vega renders as text. No builder writes a Vega expression.
 */
import type { Metric } from "../../spec/schema.js";
import {
  displayUnit,
  formatMetric,
  METRIC_FAMILY,
  METRIC_TITLE,
  type DisplayUnit,
  type MetricFamily,
} from "../format.js";
import type { Limit, RunData } from "../model.js";
import type { Comparison } from "../../results/compare.js";

export type VlSpec = Record<string, unknown>;

export const CHART_KINDS = ["sweep", "timeseries", "latency", "expect", "autotune", "compare"] as const;
export type ChartKind = (typeof CHART_KINDS)[number];

export interface Chart {
  id: string;
  kind: ChartKind;
  workload?: string;
  title: string;
  /** Sentences under the chart: how to read it, what is off the chart. */
  caption: string[];
  /** A Vega-Lite spec with its data inline. */
  spec: VlSpec;
  /** Number of data rows drawn (for the size budget). */
  points: number;
}

export interface ChartContext {
  runs: readonly RunData[];
  limits: readonly Limit[];
  comparison?: Comparison;
}

export const WIDTH = 560;
export const HEIGHT = 260;
export const FACET_WIDTH = 260;
export const FACET_HEIGHT = 180;
export const FACET_COLUMNS = 3;
/** Beyond this many facets a chart is cut (the tables have every case). */
export const MAX_FACETS = 24;

export const filterKind = (kind: string) => ({ filter: { field: "k", equal: kind } });

export const LIMIT_COLOR = "#b03a2e";
export const PASS_COLOR = "#2e7d32";
export const FAIL_COLOR = "#c62828";

export function metricAxisTitle(metric: Metric, unit: DisplayUnit): string {
  return `${METRIC_TITLE[metric]} (${unit.unit})`;
}

/** The limits that apply to a metric's family, with their value in base units. */
export function limitsFor(
  limits: readonly Limit[],
  family: MetricFamily,
): { label: string; value: number }[] {
  return limits.flatMap((limit) => {
    const value = family === "throughput" ? limit.throughput : family === "iops" ? limit.iops : limit.latency;
    return value !== undefined ? [{ label: limit.label, value }] : [];
  });
}

/**
 * Limit rules for a chart whose largest value is `max` (base units): drawn when the limit is within 4× of
 * the data (further away it would flatten every bar to the floor), otherwise said in the caption.
 */
export function limitRows(
  limits: readonly Limit[],
  metric: Metric,
  unit: DisplayUnit,
  max: number,
  facets: readonly (string | undefined)[],
): { rows: VlSpec[]; caption: string[] } {
  const family = METRIC_FAMILY[metric];
  const rows: VlSpec[] = [];
  const caption: string[] = [];
  for (const limit of limitsFor(limits, family)) {
    if (max > 0 && limit.value > 4 * max) {
      caption.push(
        `Limit “${limit.label}” (${formatMetric(family, limit.value)}) is off the chart: the highest value shown is ${((max / limit.value) * 100).toFixed(1)}% of it.`,
      );
      continue;
    }
    for (const f of facets)
      rows.push({
        k: "limit",
        y: limit.value / unit.factor,
        lab: `${limit.label} (${formatMetric(family, limit.value)})`,
        ...(f !== undefined && { f }),
      });
  }
  if (rows.length > 0) caption.push("Dashed red lines: the limits declared in the spec's report section.");
  return { rows, caption };
}

export function limitLayers(): VlSpec[] {
  return [
    {
      transform: [filterKind("limit")],
      mark: { type: "rule", color: LIMIT_COLOR, strokeDash: [6, 4], size: 1.5 },
      encoding: { y: { field: "y", type: "quantitative" } },
    },
    {
      transform: [filterKind("limit")],
      mark: {
        type: "text",
        color: LIMIT_COLOR,
        align: "left",
        baseline: "bottom",
        dx: 4,
        dy: -3,
        fontSize: 10,
      },
      encoding: {
        y: { field: "y", type: "quantitative" },
        x: { value: 0 },
        text: { field: "lab", type: "nominal" },
      },
    },
  ];
}

/**
 * A layered chart, faceted when `facet` is given: facet + spec.layer, every layer filtering its kind of
 * row from the one inline data set.
 */
export function compose(options: {
  title: string;
  subtitle?: string;
  rows: VlSpec[];
  layers: VlSpec[];
  facet?: { title: string; order: string[] };
  width?: number;
  height?: number;
  resolve?: VlSpec;
}): VlSpec {
  const title = {
    text: options.title,
    anchor: "start",
    ...(options.subtitle && { subtitle: options.subtitle }),
  };
  const base = {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title,
    data: { values: options.rows },
  };
  if (options.facet) {
    return {
      ...base,
      facet: {
        field: "f",
        type: "nominal",
        title: options.facet.title,
        sort: options.facet.order,
        header: { labelLimit: 240 },
      },
      columns: Math.min(FACET_COLUMNS, options.facet.order.length),
      spec: {
        width: options.width ?? FACET_WIDTH,
        height: options.height ?? FACET_HEIGHT,
        layer: options.layers,
      },
      ...(options.resolve && { resolve: options.resolve }),
    };
  }
  return {
    ...base,
    width: options.width ?? WIDTH,
    height: options.height ?? HEIGHT,
    layer: options.layers,
    ...(options.resolve && { resolve: options.resolve }),
  };
}

export function unitFor(metric: Metric, values: Iterable<number>): DisplayUnit {
  return displayUnit(METRIC_FAMILY[metric], values);
}

export const round = (value: number) => (Number.isFinite(value) ? Number(value.toPrecision(6)) : value);

/** Merged limits of all runs (the same label and value once). */
export function mergedLimits(runs: readonly RunData[]): Limit[] {
  const seen = new Set<string>();
  const out: Limit[] = [];
  for (const run of runs) {
    for (const limit of run.plan.report.limits ?? []) {
      const key = JSON.stringify(limit);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(limit);
    }
  }
  return out;
}
