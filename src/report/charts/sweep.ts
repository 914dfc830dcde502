/**
 * The main chart of a workload: a metric across the swept parameter (x), grouped by colour, faceted by
 * the remaining dimensions. Bars (or lines) are the mean over repetitions, whiskers its 95% confidence
 * interval; limits are dashed rules; expect bounds are markers on their case, shaped by pass/fail.
 */
import type { Metric } from "../../spec/schema.js";
import { formatMetric, formatNumber, METRIC_FAMILY, METRIC_TITLE } from "../format.js";
import {
  compositeLabel,
  compositeOrder,
  dimLabel,
  dimOrder,
  type Entry,
  type WorkloadView,
} from "../view.js";
import {
  compose,
  filterKind,
  limitLayers,
  limitRows,
  MAX_FACETS,
  metricAxisTitle,
  round,
  unitFor,
  type Chart,
  type ChartContext,
  type VlSpec,
} from "./common.js";

export interface SweepRequest {
  x?: string;
  y: Metric;
  color?: string;
  facets: string[];
  mark?: "bar" | "line" | "point";
  title?: string;
}

const NUMERIC_SWEEPS = new Set([
  "size",
  "bs",
  "concurrency",
  "parallel",
  "jobs",
  "iodepth",
  "objects",
  "count",
  "read",
  "duration",
]);

export function sweepChart(
  view: WorkloadView,
  request: SweepRequest,
  ctx: ChartContext,
  id: string,
): Chart | undefined {
  const { y } = request;
  const entries = view.entries.filter((e) => e.c.metrics[y] !== undefined);
  if (entries.length === 0) return undefined;
  const xDim = request.x ?? "case";
  const facetDims = request.facets;
  const xOrder = dimOrder(entries, xDim);
  const colorOrder = request.color ? dimOrder(entries, request.color) : [];
  let facetOrder = compositeOrder(entries, facetDims);
  const caption: string[] = [];
  let shown = entries;
  if (facetOrder.length > MAX_FACETS) {
    caption.push(
      `Only the first ${MAX_FACETS} of ${facetOrder.length} panels are drawn; the tables list every case.`,
    );
    facetOrder = facetOrder.slice(0, MAX_FACETS);
    const keep = new Set(facetOrder);
    shown = entries.filter((e) => keep.has(compositeLabel(e, facetDims)));
  }
  const facetOf = (e: Entry) => (facetDims.length > 0 ? compositeLabel(e, facetDims) : undefined);

  const max = Math.max(...shown.map((e) => e.c.metrics[y]!.ci95?.[1] ?? e.c.metrics[y]!.max));
  const unit = unitFor(
    y,
    shown.map((e) => e.c.metrics[y]!.ci95?.[1] ?? e.c.metrics[y]!.mean),
  );
  const family = METRIC_FAMILY[y];
  const rows: VlSpec[] = shown.map((e) => {
    const s = e.c.metrics[y]!;
    return {
      k: "m",
      x: dimLabel(e, xDim),
      ...(request.color && { c: dimLabel(e, request.color) }),
      ...(facetDims.length > 0 && { f: facetOf(e) }),
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
  });

  // Expect bounds of this workload and metric, on their cases.
  const expectRows: VlSpec[] = [];
  for (const e of shown) {
    for (const result of e.run.expect.filter((r) => r.case === e.c.id && r.metric === y)) {
      for (const [bound, sign] of [
        [result.atLeast, "≥"],
        [result.atMost, "≤"],
      ] as const) {
        if (bound === undefined) continue;
        expectRows.push({
          k: "e",
          x: dimLabel(e, xDim),
          ...(request.color && { c: dimLabel(e, request.color) }),
          ...(facetDims.length > 0 && { f: facetOf(e) }),
          y: round(bound / unit.factor),
          st: result.pass ? "pass" : "fail",
          lab: `expect[${result.index}] ${METRIC_TITLE[y]} ${sign} ${formatMetric(family, bound)}: ${result.pass ? "pass" : "fail"} (measured median ${formatMetric(family, result.measured)})`,
          case: e.c.id,
        });
      }
    }
  }
  const limits = limitRows(ctx.limits, y, unit, max, facetDims.length > 0 ? facetOrder : [undefined]);
  caption.unshift(
    `${request.mark === "line" || request.mark === "point" ? "Points" : "Bars"}: mean over the measured repetitions; whiskers: 95% confidence interval of the mean (needs 2 or more repetitions).`,
  );
  if (expectRows.length > 0)
    caption.push(
      "Triangles (pass) and crosses (fail): the bounds of the spec's expect assertions, on the case they check.",
    );
  caption.push(...limits.caption);

  const mark = request.mark ?? (NUMERIC_SWEEPS.has(xDim) && xOrder.length >= 5 ? "line" : "bar");
  const grouped = mark === "bar" && request.color !== undefined;
  const xEnc = {
    field: "x",
    type: "ordinal",
    title: axisTitle(xDim),
    sort: xOrder,
    axis: { labelAngle: xOrder.some((l) => l.length > 8) ? -30 : 0, labelLimit: 160 },
  };
  const colorEnc = request.color
    ? { field: "c", type: "nominal", title: axisTitle(request.color), sort: colorOrder }
    : undefined;
  const offset = grouped ? { xOffset: { field: "c", type: "nominal", sort: colorOrder } } : {};
  const yTitle = metricAxisTitle(y, unit);
  const tooltip = [
    { field: "case", title: "case" },
    ...(ctx.runs.length > 1 ? [{ field: "run", title: "run" }] : []),
    { field: "mean", title: "mean" },
    { field: "median", title: "median" },
    { field: "ci", title: "95% CI of the mean" },
    { field: "n", title: "repetitions" },
    { field: "cv", title: "CV" },
  ];
  const measured = (markSpec: VlSpec): VlSpec => ({
    transform: [filterKind("m")],
    mark: markSpec,
    encoding: {
      x: xEnc,
      ...offset,
      y: { field: "y", type: "quantitative", title: yTitle },
      ...(colorEnc && { color: colorEnc }),
      tooltip,
    },
  });
  const layers: VlSpec[] = [];
  if (mark === "bar") layers.push(measured({ type: "bar", ...(colorEnc ? {} : { color: "#4c78a8" }) }));
  else if (mark === "line") layers.push(measured({ type: "line", point: { filled: true, size: 40 } }));
  else layers.push(measured({ type: "point", filled: true, size: 60 }));
  if (rows.some((r) => r.lo !== undefined)) {
    layers.push({
      transform: [filterKind("m"), { filter: { field: "lo", valid: true } }],
      mark: { type: "rule", size: 1.2 },
      encoding: {
        x: xEnc,
        ...offset,
        y: { field: "lo", type: "quantitative", title: yTitle },
        y2: { field: "hi" },
        ...(colorEnc && !grouped ? { color: colorEnc } : { color: { value: "#222" } }),
      },
    });
  }
  if (expectRows.length > 0) {
    layers.push({
      transform: [filterKind("e")],
      mark: { type: "point", filled: true, size: 90, color: "#111", opacity: 0.9 },
      encoding: {
        x: xEnc,
        ...offset,
        y: { field: "y", type: "quantitative", title: yTitle },
        shape: {
          field: "st",
          type: "nominal",
          title: "expect",
          scale: { domain: ["pass", "fail"], range: ["triangle-up", "cross"] },
        },
        tooltip: [{ field: "lab", title: "expectation" }],
      },
    });
  }
  if (limits.rows.length > 0) layers.push(...limitLayers());

  const title = request.title ?? `${view.name}: ${METRIC_TITLE[y]}${request.x ? ` by ${request.x}` : ""}`;
  const allRows = [...rows, ...expectRows, ...limits.rows];
  return {
    id,
    kind: "sweep",
    workload: view.name,
    title,
    caption,
    points: allRows.length,
    spec: compose({
      title,
      ...(view.description && { subtitle: view.description }),
      rows: allRows,
      layers,
      ...(facetDims.length > 0 && { facet: { title: facetDims.join(" · "), order: facetOrder } }),
      ...(grouped &&
        facetDims.length === 0 && {
          width: Math.min(760, Math.max(420, xOrder.length * (colorOrder.length * 16 + 16))),
        }),
    }),
  };
}

export function axisTitle(dim: string): string {
  return dim === "case" ? "case" : dim;
}
