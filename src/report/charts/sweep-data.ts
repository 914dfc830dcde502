/**
 * A sweep chart's data: per case the mean of its metric with the 95% CI, and the bounds of the expect
 * assertions on it, scaled to one display unit.
 */
import type { ExpectResult } from "../../results/summary.js";
import { METRIC_INFO } from "../../rows/metrics.js";
import type { Metric } from "../../spec/schema.js";
import { formatMetric, formatNumber, type DisplayUnit } from "../format.js";
import { dimLabel, dimOrder, type Entry, type WorkloadView } from "../view.js";
import { round, unitFor, type VlSpec } from "./common.js";
import { expectBounds } from "./expect-data.js";
import { panelsOf, type Panels } from "./panels.js";
import { maxOf } from "../../rows/stats.js";

export interface SweepRequest {
  x?: string;
  y: Metric;
  color?: string;
  facets: string[];
  mark?: "bar" | "line" | "point";
  title?: string;
}

export interface SweepData {
  xDim: string;
  xOrder: string[];
  colorOrder: string[];
  panels: Panels;
  unit: DisplayUnit;
  /** The highest value drawn (base units): the top of a whisker, or the highest repetition. */
  max: number;
  /** Kind "m": one per case. */
  measured: VlSpec[];
  /** Kind "e": one per expect bound on a case of the chart. */
  bounds: VlSpec[];
}

export function sweepData(view: WorkloadView, request: SweepRequest): SweepData | undefined {
  const { y } = request;
  const entries = view.entries.filter((e) => e.c.metrics[y] !== undefined);
  if (entries.length === 0) return undefined;
  const xDim = request.x ?? "case";
  const panels = panelsOf(entries, request.facets);
  const { shown } = panels;
  const max = maxOf(shown.map((e) => e.c.metrics[y]!.ci95?.[1] ?? e.c.metrics[y]!.max));
  const unit = unitFor(
    y,
    shown.map((e) => e.c.metrics[y]!.ci95?.[1] ?? e.c.metrics[y]!.mean),
  );
  const place = (e: Entry) => ({
    x: dimLabel(e, xDim),
    ...(request.color && { c: dimLabel(e, request.color) }),
    ...panels.field(e),
  });
  return {
    xDim,
    xOrder: dimOrder(entries, xDim),
    colorOrder: request.color ? dimOrder(entries, request.color) : [],
    panels,
    unit,
    max,
    measured: shown.map((e) => measuredRow(e, y, unit, place(e))),
    bounds: shown.flatMap((e) =>
      e.run.expect
        .filter((r) => r.case === e.c.id && r.metric === y)
        .flatMap((result) => boundRows(e, result, unit, place(e))),
    ),
  };
}

function measuredRow(e: Entry, y: Metric, unit: DisplayUnit, place: VlSpec): VlSpec {
  const s = e.c.metrics[y]!;
  const { family } = METRIC_INFO[y];
  return {
    k: "m",
    ...place,
    y: round(s.mean / unit.factor),
    // Every metric is non-negative: a whisker below zero (two repetitions, a wide t interval) stops at 0.
    ...(s.ci95 && { lo: round(Math.max(0, s.ci95[0]) / unit.factor), hi: round(s.ci95[1] / unit.factor) }),
    case: e.c.id,
    run: e.run.label,
    mean: formatMetric(family, s.mean),
    median: formatMetric(family, s.median),
    ci: s.ci95
      ? `${formatMetric(family, Math.max(0, s.ci95[0]))} … ${formatMetric(family, s.ci95[1])}`
      : "n < 2",
    n: s.n,
    cv: `${formatNumber(s.cv * 100)}%`,
  };
}

function boundRows(e: Entry, result: ExpectResult, unit: DisplayUnit, place: VlSpec): VlSpec[] {
  const { title, family } = METRIC_INFO[result.metric];
  const verdict = result.pass ? "pass" : "fail";
  return expectBounds(result).map(({ bound, sign }) => ({
    k: "e",
    ...place,
    y: round(bound / unit.factor),
    st: verdict,
    lab: `expect[${result.index}] ${title} ${sign} ${formatMetric(family, bound)}: ${verdict} (measured median ${formatMetric(family, result.measured)})`,
    case: e.c.id,
  }));
}
