/**
 * The limits a spec's report section declares (a NIC's line rate, a disk's rated IOPS), drawn as labelled
 * dashed rules on the charts of their metric's family, or said in the caption when far off the data.
 */
import { METRIC_INFO, type MetricFamily } from "../../results/metrics.js";
import type { Metric } from "../../spec/schema.js";
import { formatMetric, type DisplayUnit } from "../format.js";
import type { Limit, RunData } from "../model.js";
import { filterKind, LIMIT_COLOR, type VlSpec } from "./common.js";

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
  const { family } = METRIC_INFO[metric];
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
