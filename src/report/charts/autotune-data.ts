/**
 * An autotune chart's data: per case and round, the median of the figure the autotune judged by — the
 * throughput (or IOPS) for the gain rule, the bound's latency figure for the bound rule (latency against
 * load: the "hockey stick") — with its 95% CI, the knee the autotune chose, and the bound.
 */
import { formatMetric, type DisplayUnit } from "../format.js";
import type { AutotuneResult } from "../model.js";
import type { WorkloadView } from "../view.js";
import { round, unitFor, type VlSpec } from "./common.js";
import { maxOf } from "../../rows/stats.js";
import { METRIC_INFO } from "../../rows/metrics.js";
import type { LatencyBound } from "../../engines/autotune.js";
import type { Metric } from "../../rows/metric-names.js";

export interface AutotuneData {
  metric: Metric;
  /** The tuned parameter. */
  param: string;
  /** Its values the rounds tried, ascending: the axis ticks (a log axis would tick between them). */
  tried: number[];
  /** The gain rule: gain per round below which the autotune stopped (a fraction). */
  threshold?: number;
  /** The bound rule: the bound, drawn as a rule. */
  bound?: LatencyBound;
  unit: DisplayUnit;
  /** The highest value drawn (base units). */
  max: number;
  /** Kind "m" per round, then kind "knee", per case; kind "bound" once. */
  rows: VlSpec[];
}

type Step = AutotuneResult["rounds"][number];

/** Cases with at least two rounds (one is enough for the bound rule); undefined when there are none. */
export function autotuneData(view: WorkloadView, multiRun: boolean): AutotuneData | undefined {
  const entries = view.entries.filter(
    (e) => e.c.autotune && e.c.autotune.rounds.length >= (e.c.autotune.bound ? 1 : 2),
  );
  if (entries.length === 0) return undefined;
  const first = entries[0]!.c.autotune!;
  const bound = first.bound;
  const metric: Metric = bound
    ? bound.metric
    : entries.some((e) => e.c.autotune!.rounds.some((r) => r.throughput))
      ? "throughput"
      : "iops";
  const figure = (r: Step) => (bound ? r.bound : r[metric as "throughput" | "iops"]);
  const values = entries.flatMap((e) =>
    e.c.autotune!.rounds.flatMap((r) => {
      const s = figure(r);
      return s ? [s.ci95?.[1] ?? s.median] : [];
    }),
  );
  if (bound) values.push(bound.atMost);
  const unit = unitFor(metric, values);
  const tried = [...new Set(entries.flatMap((e) => e.c.autotune!.rounds.map((r) => r.value)))];
  return {
    metric,
    param: first.param,
    tried: tried.sort((a, b) => a - b),
    ...(first.stopWhenGainBelow !== undefined && { threshold: first.stopWhenGainBelow }),
    ...(bound && { bound }),
    unit,
    max: maxOf(values, 0),
    rows: [
      ...entries.flatMap((e) => {
        const label = `${multiRun ? `${e.run.label}: ` : ""}${e.c.id}`;
        return caseRows(e.c.autotune!, figure, metric, unit, label);
      }),
      ...(bound
        ? [{ k: "bound", y: round(bound.atMost / unit.factor), lab: `bound: ${boundText(bound)}` }]
        : []),
    ],
  };
}

/** "p99 ≤ 20 ms". */
export const boundText = (bound: LatencyBound) =>
  `${METRIC_INFO[bound.metric].title.replace(/ latency$/, "")} ≤ ${formatMetric("time", bound.atMost)}`;

function caseRows(
  tune: AutotuneResult,
  figure: (r: Step) => Step["throughput"],
  metric: Metric,
  unit: DisplayUnit,
  label: string,
): VlSpec[] {
  const family = METRIC_INFO[metric].family;
  const rows: VlSpec[] = [];
  for (const r of tune.rounds) {
    const s = figure(r);
    if (!s) continue;
    rows.push({
      k: "m",
      x: r.value,
      y: round(s.median / unit.factor),
      ...(s.ci95 && {
        // The bound rule's axis is logarithmic: a CI reaching 0 or below is drawn from the median up.
        lo: round((tune.bound && s.ci95[0] <= 0 ? s.median : Math.max(0, s.ci95[0])) / unit.factor),
        hi: round(s.ci95[1] / unit.factor),
      }),
      c: label,
      v: formatMetric(family, s.median),
      g: tune.bound
        ? r.met
          ? "met"
          : "missed"
        : r.gain !== undefined
          ? `${(r.gain * 100).toFixed(1)}%`
          : "–",
      n: r.n,
    });
  }
  if (tune.knee !== undefined) {
    const at = tune.rounds.find((r) => r.value === tune.knee);
    const s = at && figure(at);
    rows.push({
      k: "knee",
      x: tune.knee,
      ...(s && { y: round(s.median / unit.factor) }),
      c: label,
      lab: tune.bound
        ? `highest ${tune.param} within the bound: ${tune.knee}`
        : `knee: ${tune.param} = ${tune.knee}`,
    });
  }
  return rows;
}
