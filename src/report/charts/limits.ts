/**
 * The limits a spec's report section declares (a NIC's line rate, a disk's rated IOPS), drawn as labelled
 * dashed rules on the charts of their metric's family, or said in the caption when far off the data.
 */
import { METRIC_INFO, type MetricFamily } from "../../rows/metrics.js";
import type { Metric } from "../../spec/schema.js";
import { formatMetric, type DisplayUnit } from "../format.js";
import type { Limit, RunData } from "../model.js";
import type { Entry } from "../view.js";
import { filterKind, LIMIT_COLOR, type VlSpec } from "./common.js";
import { maxOf } from "../../rows/stats.js";

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
 * Vega's default colours of a nominal scale, in domain order: a target's limit rule takes the colour its
 * cases have on the chart.
 */
export const CATEGORY_COLORS = [
  "#4c78a8",
  "#f58518",
  "#e45756",
  "#72b7b2",
  "#54a24b",
  "#eeca3b",
  "#b279a2",
  "#ff9da6",
  "#9d755d",
  "#bab0ac",
];

/** Where a target's own limit goes on a chart: the panels its cases are in, in its cases' colour. */
export interface TargetPlace {
  facets: (string | undefined)[];
  color: string;
}

/**
 * The places of the targets on a chart: their cases' panels, and the colour of their cases when every
 * case of the target has the same colour on it (the chart colours by target), else the target's own
 * colour by its place among the run's targets.
 */
export function targetPlaces(
  shown: readonly Entry[],
  panelOf: (e: Entry) => { f?: string },
  colorOf: ((e: Entry) => string) | undefined,
  colorOrder: readonly string[],
): (target: string) => TargetPlace | undefined {
  return (target) => {
    const mine = shown.filter((e) => e.c.target === target);
    if (mine.length === 0) return undefined;
    const facets = [...new Set(mine.map((e) => panelOf(e).f))];
    const colors = colorOf ? [...new Set(mine.map(colorOf))] : [];
    const present = colorOrder.filter((c) => shown.some((e) => colorOf?.(e) === c));
    const index =
      colors.length === 1
        ? present.indexOf(colors[0]!)
        : Object.keys(mine[0]!.run.plan.targets).indexOf(target);
    return { facets, color: CATEGORY_COLORS[Math.max(0, index) % CATEGORY_COLORS.length]! };
  };
}

/**
 * Limit rules for a chart whose largest value is `max` (base units): drawn when the limit is within 4× of
 * the data (further away it would flatten every bar to the floor), otherwise said in the caption. A
 * target's own limit (a formula over its vars) is drawn only where its cases are, in their colour, and
 * labelled with the target, its value and the formula.
 */
export function limitRows(
  limits: readonly Limit[],
  metric: Metric,
  unit: DisplayUnit,
  max: number,
  facets: readonly (string | undefined)[],
  placeOf: (target: string) => TargetPlace | undefined = () => undefined,
): { rows: VlSpec[]; caption: string[] } {
  const { family } = METRIC_INFO[metric];
  const rows: VlSpec[] = [];
  const caption: string[] = [];
  const drawn: (ReturnType<typeof limitsFor>[number] & { place?: TargetPlace })[] = [];
  for (const limit of limitsFor(limits, family)) {
    const place = limit.target !== undefined ? placeOf(limit.target) : undefined;
    // A target none of whose cases is on this chart: not its limit.
    if (limit.target !== undefined && !place) continue;
    if (max > 0 && limit.value > 4 * max) {
      caption.push(
        `Limit “${limit.target !== undefined ? `${limit.target}: ` : ""}${limit.label}” (${formatMetric(family, limit.value)}${limit.text ? ` = ${limit.text}` : ""}) is off the chart: the highest value shown is ${((max / limit.value) * 100).toFixed(1)}% of it.`,
      );
      continue;
    }
    drawn.push({ ...limit, ...(place && { place }) });
  }
  const places = labelPlaces(
    drawn.map((l) => l.value),
    maxOf(
      drawn.map((l) => l.value),
      max,
    ),
  );
  drawn.forEach((limit, i) => {
    for (const f of limit.place?.facets ?? facets)
      rows.push({
        k: "limit",
        y: limit.value / unit.factor,
        lab: limitLabel(limit, family),
        s: places[i],
        lc: limit.place?.color ?? LIMIT_COLOR,
        ...(f !== undefined && { f }),
      });
  });
  if (drawn.some((l) => !l.place))
    caption.push("Dashed red lines: the limits declared in the spec's report section.");
  if (drawn.some((l) => l.place))
    caption.push(
      "Dashed lines in a target's colour: a limit evaluated with that target's vars, drawn where its cases are.",
    );
  return { rows, caption };
}

/** "NIC (3.13 GB/s)"; a target's: "disk1: vendor throughput 70.00 MB/s = min(50 + 0.1 * capacityGiB, 80) * 1MB/s". */
function limitLabel(limit: ReturnType<typeof limitsFor>[number], family: MetricFamily): string {
  const value = formatMetric(family, limit.value);
  return limit.target !== undefined
    ? `${limit.target}: ${limit.label} ${value}${limit.text ? ` = ${limit.text}` : ""}`
    : `${limit.label} (${value})`;
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
      mark: { type: "rule", strokeDash: [6, 4], size: 1.5 },
      encoding: {
        y: { field: "y", type: "quantitative" },
        color: { field: "lc", type: "nominal", scale: null },
      },
    },
    ...LABEL_PLACES.flatMap(({ x, ...place }, index) =>
      used.has(index)
        ? [
            {
              transform: [filterKind("limit"), { filter: { field: "s", equal: index } }],
              mark: {
                type: "text",
                dx: place.align === "left" ? 4 : -4,
                fontSize: 10,
                ...place,
              },
              encoding: {
                y: { field: "y", type: "quantitative" },
                color: { field: "lc", type: "nominal", scale: null },
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
