/**
 * Autotune rounds: throughput (or IOPS) against the tuned parameter on a log₂ axis, one line per case, the
 * chosen knee marked with a rule and its value. Drawn only when the rows carry the tuned value (each
 * round's rows hold it in their params); skipped otherwise.
 */
import type { WorkloadView } from "../view.js";
import { METRIC_INFO } from "../../rows/metrics.js";
import { autotuneData, boundText } from "./autotune-data.js";
import { autotuneLayers } from "./autotune-layers.js";
import type { Chart, ChartContext } from "./common.js";
import { compose } from "./compose.js";
import { limitRows } from "./limits.js";

export function autotuneChart(view: WorkloadView, ctx: ChartContext, id: string): Chart | undefined {
  const data = autotuneData(view, ctx.runs.length > 1);
  if (!data) return undefined;
  const limits = limitRows(ctx.limits, data.metric, data.unit, data.max, [undefined]);
  const title = data.bound
    ? `${view.name}: ${METRIC_INFO[data.metric].title} against ${data.param} (highest ${data.param} with ${boundText(data.bound)})`
    : `${view.name}: autotune of ${data.param}`;
  return {
    id,
    kind: "autotune",
    workload: view.name,
    title,
    caption: [
      data.bound
        ? `Latency against load: each point is one ${data.param} the autotune tried, the median ${METRIC_INFO[data.metric].title} over the repetitions that ran it, whiskers the 95% CI; the dashed line is the bound (${boundText(data.bound)}). A round meets the bound when its ${METRIC_INFO[data.metric].title} is within it and its client kept the schedule; each repetition bisects to the highest ${data.param} that met it, and the diamond marks their lower median.`
        : `Each point is one autotune round: the median over its repetitions, whiskers the 95% CI. The diamond marks the knee: the last round before the gain fell below ${(data.threshold! * 100).toFixed(1)}%.`,
      ...limits.caption,
    ],
    points: data.rows.length + limits.rows.length,
    spec: compose({
      title,
      rows: [...data.rows, ...limits.rows],
      layers: autotuneLayers(data, { limits: limits.rows }),
    }),
  };
}
