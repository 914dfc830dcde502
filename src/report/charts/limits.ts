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
): { label: string; value: number; target?: string; text?: string }[] {
  return limits.flatMap((limit) => {
    const value = family === "throughput" ? limit.throughput : family === "iops" ? limit.iops : limit.latency;
    if (value === undefined) return [];
    return [
      {
        label: limit.label,
        value,
        ...(limit.target !== undefined && { target: limit.target }),
        ...(limit.text !== undefined && { text: limit.text }),
      },
    ];
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
  const drawn: { label: string; value: number }[] = [];
  for (const limit of limitsFor(limits, family)) {
    if (max > 0 && limit.value > 4 * max) {
      caption.push(
        `Limit “${limit.label}” (${formatMetric(family, limit.value)}) is off the chart: the highest value shown is ${((max / limit.value) * 100).toFixed(1)}% of it.`,
      );
      continue;
    }
    drawn.push(limit);
  }
  const places = labelPlaces(
    drawn.map((l) => l.value),
    Math.max(max, ...drawn.map((l) => l.value)),
  );
  drawn.forEach((limit, i) => {
    for (const f of facets)
      rows.push({
        k: "limit",
        y: limit.value / unit.factor,
        lab: `${limit.label} (${formatMetric(family, limit.value)})`,
        s: places[i],
        ...(f !== undefined && { f }),
      });
  });
  if (rows.length > 0) caption.push("Dashed red lines: the limits declared in the spec's report section.");
  return { rows, caption };
}

/** Where a limit's label goes: above or below its rule, at the left or the right edge. */
const LABEL_PLACES = [
  { align: "left", baseline: "bottom", dy: -3, x: 0 },
  { align: "left", baseline: "top", dy: 3, x: 0 },
  { align: "right", baseline: "bottom", dy: -3, x: "width" },
  { align: "right", baseline: "top", dy: 3, x: "width" },
] as const;

/** Limits nearer than this share of the y axis would print their labels over each other. */
const CLOSE = 0.1;

/**
 * Per limit, the index of its label's place: from the highest limit down, the first place no nearby
 * limit's label already holds — so of two close limits the lower one's label goes below its rule, away
 * from the other (more than four limits within one label's height share the last place).
 */
export function labelPlaces(values: readonly number[], top: number): number[] {
  const places: number[] = [];
  const done: number[] = [];
  for (const i of values.map((_, index) => index).sort((a, b) => values[b]! - values[a]!)) {
    const taken = new Set(
      done.filter((j) => Math.abs(values[j]! - values[i]!) < CLOSE * top).map((j) => places[j]),
    );
    const free = LABEL_PLACES.findIndex((_, place) => !taken.has(place));
    places[i] = free === -1 ? LABEL_PLACES.length - 1 : free;
    done.push(i);
  }
  return places;
}

/** The rules and labels of a chart's limit rows (none without any): a text layer per place in use. */
export function limitLayers(rows: readonly VlSpec[]): VlSpec[] {
  if (rows.length === 0) return [];
  const used = new Set(rows.map((r) => r.s));
  return [
    {
      transform: [filterKind("limit")],
      mark: { type: "rule", color: LIMIT_COLOR, strokeDash: [6, 4], size: 1.5 },
      encoding: { y: { field: "y", type: "quantitative" } },
    },
    ...LABEL_PLACES.flatMap(({ x, ...place }, index) =>
      used.has(index)
        ? [
            {
              transform: [filterKind("limit"), { filter: { field: "s", equal: index } }],
              mark: {
                type: "text",
                color: LIMIT_COLOR,
                dx: place.align === "left" ? 4 : -4,
                fontSize: 10,
                ...place,
              },
              encoding: {
                y: { field: "y", type: "quantitative" },
                x: { value: x },
                text: { field: "lab", type: "nominal" },
              },
            },
          ]
        : [],
    ),
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
