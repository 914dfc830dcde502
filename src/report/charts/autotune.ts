/**
 * Autotune rounds: throughput (or IOPS) against the tuned parameter on a log₂ axis, one line per case, the
 * chosen knee marked with a rule and its value. Drawn only when the rows carry the tuned value (each
 * round's rows hold it in their params); skipped otherwise.
 */
import { formatMetric, METRIC_TITLE } from "../format.js";
import type { WorkloadView } from "../view.js";
import {
  compose,
  filterKind,
  limitLayers,
  limitRows,
  metricAxisTitle,
  round,
  unitFor,
  type Chart,
  type ChartContext,
  type VlSpec,
} from "./common.js";

export function autotuneChart(view: WorkloadView, ctx: ChartContext, id: string): Chart | undefined {
  const entries = view.entries.filter((e) => e.c.autotune && e.c.autotune.rounds.length >= 2);
  if (entries.length === 0) return undefined;
  const metric = entries.some((e) => e.c.autotune!.rounds.some((r) => r.throughput)) ? "throughput" : "iops";
  const values = entries.flatMap((e) =>
    e.c.autotune!.rounds.flatMap((r) => (r[metric] ? [r[metric]!.ci95?.[1] ?? r[metric]!.median] : [])),
  );
  const unit = unitFor(metric, values);
  const param = entries[0]!.c.autotune!.param;
  const multi = ctx.runs.length > 1;
  const rows: VlSpec[] = [];
  for (const e of entries) {
    const tune = e.c.autotune!;
    const label = `${multi ? `${e.run.label}: ` : ""}${e.c.id}`;
    for (const r of tune.rounds) {
      const s = r[metric];
      if (!s) continue;
      rows.push({
        k: "m",
        x: r.value,
        y: round(s.median / unit.factor),
        ...(s.ci95 && {
          lo: round(Math.max(0, s.ci95[0]) / unit.factor),
          hi: round(s.ci95[1] / unit.factor),
        }),
        c: label,
        v: formatMetric(metric, s.median),
        g: r.gain !== undefined ? `${(r.gain * 100).toFixed(1)}%` : "–",
        n: r.n,
      });
    }
    if (tune.knee !== undefined) {
      const at = tune.rounds.find((r) => r.value === tune.knee)?.[metric];
      rows.push({
        k: "knee",
        x: tune.knee,
        ...(at && { y: round(at.median / unit.factor) }),
        c: label,
        lab: `knee: ${param} = ${tune.knee}`,
      });
    }
  }
  const limits = limitRows(ctx.limits, metric, unit, Math.max(0, ...values), [undefined]);
  const threshold = entries[0]!.c.autotune!.stopWhenGainBelow;
  const xEnc = {
    field: "x",
    type: "quantitative",
    title: `${param} (log₂ scale)`,
    scale: { type: "log", base: 2 },
  };
  const yTitle = metricAxisTitle(metric, unit);
  const color = { field: "c", type: "nominal", title: "case" };
  const layers: VlSpec[] = [
    {
      transform: [filterKind("m")],
      mark: { type: "line", point: { filled: true, size: 40 } },
      encoding: {
        x: xEnc,
        y: { field: "y", type: "quantitative", title: yTitle },
        color,
        tooltip: [
          { field: "c", title: "case" },
          { field: "x", title: param },
          { field: "v", title: `median ${METRIC_TITLE[metric]}` },
          { field: "g", title: "gain over the previous round" },
          { field: "n", title: "repetitions" },
        ],
      },
    },
    {
      transform: [filterKind("knee")],
      mark: { type: "rule", strokeDash: [2, 2], color: "#555" },
      encoding: { x: xEnc },
    },
    {
      transform: [filterKind("knee")],
      mark: { type: "point", shape: "diamond", size: 160, filled: true, color: "#111" },
      encoding: {
        x: xEnc,
        y: { field: "y", type: "quantitative", title: yTitle },
        tooltip: [{ field: "lab", title: "autotune" }],
      },
    },
    {
      transform: [filterKind("knee")],
      mark: { type: "text", align: "left", dx: 6, dy: -10, fontWeight: "bold" },
      encoding: { x: xEnc, y: { field: "y", type: "quantitative" }, text: { field: "lab", type: "nominal" } },
    },
  ];
  if (rows.some((r) => r.lo !== undefined)) {
    layers.splice(1, 0, {
      transform: [filterKind("m"), { filter: { field: "lo", valid: true } }],
      mark: { type: "rule" },
      encoding: {
        x: xEnc,
        y: { field: "lo", type: "quantitative", title: yTitle },
        y2: { field: "hi" },
        color,
      },
    });
  }
  if (limits.rows.length > 0) layers.push(...limitLayers());
  const title = `${view.name}: autotune of ${param}`;
  return {
    id,
    kind: "autotune",
    workload: view.name,
    title,
    caption: [
      `Each point is one autotune round: the median over its repetitions, whiskers the 95% CI. The diamond marks the knee: the last round before the gain fell below ${(threshold * 100).toFixed(1)}%.`,
      ...limits.caption,
    ],
    points: rows.length + limits.rows.length,
    spec: compose({ title, rows: [...rows, ...limits.rows], layers }),
  };
}
