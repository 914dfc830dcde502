/**
 * What every chart builder shares: the chart type, sizes and colours, and the small pieces of data and
 * encoding every kind of chart uses.
 *
 * Safety: chart data use fixed, safe field names (x, c, f, y, lo, hi, …), so no user string is ever a
 * field name; user strings (titles, labels, target names) appear only as data values and title text,
 * which Vega renders as text. No builder writes a Vega expression.
 */
import type { Comparison } from "../../results/compare.js";
import { METRIC_INFO } from "../../rows/metrics.js";
import type { Metric } from "../../spec/schema.js";
import { displayUnit, type DisplayUnit } from "../format.js";
import type { Limit, RunData } from "../model.js";
import type { Entry } from "../view.js";

export type VlSpec = Record<string, unknown>;

export const CHART_KINDS = [
  "sweep",
  "timeseries",
  "telemetry",
  "hosts",
  "latency",
  "processes",
  "sizes",
  "expect",
  "autotune",
  "rounds",
  "compare",
  "trend",
] as const;
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
  /** What the pre-rendered image draws, when lighter than the live chart (default: `spec`). */
  image?: VlSpec;
  /** Number of data rows drawn (for the size budget). */
  points: number;
  /** A time-series chart's cases, each with its label: the host telemetry under it is theirs. */
  seriesCases?: { entry: Entry; label: string }[];
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
/** Beyond this many cases a chart is cut too: its data and pre-rendered image grow with each one. */
export const MAX_CHART_ENTRIES = 600;

export const filterKind = (kind: string) => ({ filter: { field: "k", equal: kind } });

export const LIMIT_COLOR = "#b03a2e";
export const PASS_COLOR = "#2e7d32";
export const FAIL_COLOR = "#c62828";

export function metricAxisTitle(metric: Metric, unit: DisplayUnit): string {
  return `${METRIC_INFO[metric].title} (${unit.unit})`;
}

export function axisTitle(dim: string): string {
  return dim === "case" ? "case" : dim;
}

/** An x axis of a dimension's values in their order; long labels slanted. */
export function ordinalX(dim: string, order: readonly string[]): VlSpec {
  return {
    field: "x",
    type: "ordinal",
    title: axisTitle(dim),
    sort: order,
    axis: { labelAngle: order.some((l) => l.length > 8) ? -30 : 0, labelLimit: 160 },
  };
}

export function unitFor(metric: Metric, values: Iterable<number>): DisplayUnit {
  return displayUnit(METRIC_INFO[metric].family, values);
}

export const round = (value: number) => (Number.isFinite(value) ? Number(value.toPrecision(6)) : value);
