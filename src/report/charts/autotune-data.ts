/**
 * An autotune chart's data: per case and round, the median throughput (or IOPS) with its 95% CI, and
 * the knee the autotune chose.
 */
import { formatMetric, type DisplayUnit } from "../format.js";
import type { AutotuneResult } from "../model.js";
import type { WorkloadView } from "../view.js";
import { round, unitFor, type VlSpec } from "./common.js";
import { maxOf } from "../../rows/stats.js";

export interface AutotuneData {
  metric: "throughput" | "iops";
  /** The tuned parameter. */
  param: string;
  /** Its values the rounds tried, ascending: the axis ticks (a log axis would tick between them). */
  tried: number[];
  /** Gain per round below which the autotune stopped (a fraction). */
  threshold: number;
  unit: DisplayUnit;
  /** The highest value drawn (base units). */
  max: number;
  /** Kind "m" per round, then kind "knee", per case. */
  rows: VlSpec[];
}

/** Cases with at least two rounds; undefined when there are none. */
export function autotuneData(view: WorkloadView, multiRun: boolean): AutotuneData | undefined {
  const entries = view.entries.filter((e) => e.c.autotune && e.c.autotune.rounds.length >= 2);
  if (entries.length === 0) return undefined;
  const metric = entries.some((e) => e.c.autotune!.rounds.some((r) => r.throughput)) ? "throughput" : "iops";
  const values = entries.flatMap((e) =>
    e.c.autotune!.rounds.flatMap((r) => (r[metric] ? [r[metric]!.ci95?.[1] ?? r[metric]!.median] : [])),
  );
  const unit = unitFor(metric, values);
  const param = entries[0]!.c.autotune!.param;
  const tried = [...new Set(entries.flatMap((e) => e.c.autotune!.rounds.map((r) => r.value)))];
  return {
    metric,
    param,
    tried: tried.sort((a, b) => a - b),
    threshold: entries[0]!.c.autotune!.stopWhenGainBelow,
    unit,
    max: maxOf(values, 0),
    rows: entries.flatMap((e) => {
      const label = `${multiRun ? `${e.run.label}: ` : ""}${e.c.id}`;
      return caseRows(e.c.autotune!, metric, unit, param, label);
    }),
  };
}

function caseRows(
  tune: AutotuneResult,
  metric: AutotuneData["metric"],
  unit: DisplayUnit,
  param: string,
  label: string,
): VlSpec[] {
  const rows: VlSpec[] = [];
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
  return rows;
}
