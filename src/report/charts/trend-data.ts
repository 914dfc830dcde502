/**
 * A trend chart's data: per case, one row per run that measured it — the mean in the chart's unit with its
 * 95% interval, the run's start and commit, and its verdict against the previous run.
 */
import type { CaseTrend, TrendPoint } from "../../results/trend.js";
import { METRIC_INFO } from "../../rows/metrics.js";
import { formatMetric, formatNumber, formatSignedPercent, type DisplayUnit } from "../format.js";
import { round, type VlSpec } from "./common.js";

/** The verdicts a point is coloured by; every other verdict (or none: the first run) is "measured". */
export const TREND_MARKS = ["measured", "regression", "improvement", "failed"] as const;

/** A commit as the chart labels it: its first 10 hex digits, starred when the spec differed from it. */
export const commitLabel = (point: Pick<TrendPoint, "commit" | "dirty">) =>
  point.commit ? `${point.commit.slice(0, 10)}${point.dirty ? "*" : ""}` : "–";

export function trendRows(cases: readonly CaseTrend[], unit: DisplayUnit): VlSpec[] {
  return cases.flatMap((c) => {
    const { family } = METRIC_INFO[c.metric];
    const measured = c.points.filter((point) => point.stats);
    return measured.map((point, index) => {
      const { stats } = point;
      const mark = (TREND_MARKS as readonly string[]).includes(point.verdict ?? "")
        ? point.verdict!
        : "measured";
      return {
        f: c.case,
        ...(point.start && { t: point.start }),
        c: commitLabel(point),
        r: point.run,
        y: round(stats!.mean / unit.factor),
        // No interval (one repetition): the band is the line, so every panel has a band's extent.
        lo: round((stats!.ci95?.[0] ?? stats!.mean) / unit.factor),
        hi: round((stats!.ci95?.[1] ?? stats!.mean) / unit.factor),
        st: mark,
        // Drawn in the image too: the marked runs, and each case's first and last.
        ...((mark !== "measured" || index === 0 || index === measured.length - 1) && { e: 1 }),
        m: `${formatMetric(family, stats!.mean)}${stats!.ci95 ? ` ± ${formatMetric(family, (stats!.ci95[1] - stats!.ci95[0]) / 2)}` : ""} (median ${formatMetric(family, stats!.median)}, n = ${stats!.n})`,
        v: point.previous
          ? `${point.verdict ?? "not compared"}${point.change !== undefined ? ` ${formatSignedPercent(point.change)}` : ""}${point.p !== undefined ? `, p = ${formatNumber(point.p)}` : ""} vs ${point.previous}`
          : "first run",
      };
    });
  });
}
