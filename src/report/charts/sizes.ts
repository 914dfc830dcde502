/**
 * Latency per size class, for cases whose sizes were drawn from a distribution: the size classes on x (a
 * weighted bucket's size, or a power-of-two range), the medians over the repetitions of each class's p50
 * and p99 on a log axis, one line per case and percentile. Whether large objects pay for small ones, or
 * the other way round, shows here and nowhere in the case's own percentiles, which pool every size.
 */
import { isSizeDistribution } from "../../rows/sizes.js";
import { formatSize } from "../../spec/units.js";
import { formatMetric } from "../format.js";
import { compositeLabel, compositeOrder, type Entry, type WorkloadView } from "../view.js";
import { filterKind, round, unitFor, type Chart, type VlSpec } from "./common.js";
import { compose } from "./compose.js";

const hasSizes = (e: Entry) => (e.c.bySize?.length ?? 0) > 0;

/** A class as people read it: a bucket's size, or the range of a power-of-two class. */
export function sizeClassLabel(drawn: unknown, size: number): string {
  if (isSizeDistribution(drawn) && "buckets" in drawn) return formatSize(size);
  return size <= 1 ? formatSize(size) : `${formatSize(size / 2)}–${formatSize(size)}`;
}

export function sizesChart(view: WorkloadView, id: string): Chart | undefined {
  const entries = view.entries.filter(hasSizes);
  if (entries.length === 0) return undefined;
  const series = (e: Entry) => (view.dims.length > 0 ? compositeLabel(e, view.dims) : e.c.id);
  const drawnOf = (e: Entry) => (isSizeDistribution(e.c.params.size) ? e.c.params.size : e.c.params.bs);
  const values = entries.flatMap((e) => e.c.bySize!.flatMap((part) => [part.p50, part.p99]));
  const unit = unitFor(
    "p99",
    values.filter((v): v is number => v !== undefined),
  );
  const classes = new Map<number, string>();
  const rows: VlSpec[] = [];
  for (const e of entries) {
    const total = e.c.bySize!.reduce((sum, part) => sum + part.ops, 0);
    for (const part of e.c.bySize!) {
      const x = sizeClassLabel(drawnOf(e), part.size);
      classes.set(part.size, x);
      for (const p of ["p50", "p99"] as const) {
        const value = part[p];
        if (value === undefined || value <= 0) continue;
        rows.push({
          k: "m",
          x,
          s: series(e),
          p,
          y: round(value / unit.factor),
          case: e.c.id,
          latency: formatMetric("time", value),
          ops: part.ops,
          share: `${((100 * part.ops) / Math.max(1, total)).toFixed(1)}%`,
          bytes: formatSize(part.bytes),
        });
      }
    }
  }
  if (rows.length === 0) return undefined;
  const xOrder = [...classes.entries()].sort(([a], [b]) => a - b).map(([, label]) => label);
  const seriesOrder = view.dims.length > 0 ? compositeOrder(entries, view.dims) : entries.map((e) => e.c.id);
  const encoding = {
    x: { field: "x", type: "ordinal", sort: xOrder, title: "size class", axis: { labelAngle: -30 } },
    y: {
      field: "y",
      type: "quantitative",
      scale: { type: "log" },
      title: `latency (${unit.unit}, log scale)`,
    },
    color: { field: "s", type: "nominal", sort: seriesOrder, title: "case" },
    strokeDash: { field: "p", type: "nominal", sort: ["p50", "p99"], title: "percentile" },
    detail: [{ field: "s" }, { field: "p" }],
  };
  const tooltip = [
    { field: "case", title: "case" },
    { field: "x", title: "size class" },
    { field: "p", title: "percentile" },
    { field: "latency", title: "latency (median over repetitions)" },
    { field: "ops", title: "operations" },
    { field: "share", title: "share of the case's operations" },
    { field: "bytes", title: "bytes" },
  ];
  const layers: VlSpec[] = [
    { transform: [filterKind("m")], mark: { type: "line", point: true }, encoding: { ...encoding, tooltip } },
  ];
  const title = `${view.name}: latency per size class`;
  return {
    id,
    kind: "sizes",
    workload: view.name,
    title,
    caption: [
      "Sizes drawn from a distribution: each line a case's p50 (solid) or p99 (dashed) of the operations of one size class — a weighted bucket's size, else the sizes between two powers of two — the median over its measured repetitions. The case's own percentiles pool every size.",
    ],
    points: rows.length,
    spec: compose({ title, rows, layers }),
  };
}
