/**
 * The tables of runs over time: per case, its span of runs and figures; and every run that regressed against
 * the one before it, with the change, its interval and the test that decided.
 */
import type { Trend } from "../results/trend.js";
import { METRIC_INFO } from "../rows/metrics.js";
import { commitLabel } from "./charts/trend-data.js";
import { escapeHtml } from "./escape.js";
import { formatMetric, formatNumber, formatSignedPercent } from "./format.js";
import { num, table } from "./html-table.js";

const code = (text: string) => ({ html: `<code>${escapeHtml(text)}</code>` });

/** Per case and metric: how many runs measured it, the first and latest figure, and what changed between. */
export function trendCaseTable(trend: Trend): string {
  const rows = trend.cases.map((c) => {
    const { family, title } = METRIC_INFO[c.metric];
    const measured = c.points.filter((point) => point.stats);
    const first = measured[0]!;
    const latest = measured.at(-1)!;
    const count = (verdict: string) => c.points.filter((point) => point.verdict === verdict).length;
    return [
      code(c.case),
      title,
      num(String(measured.length)),
      num(`${formatMetric(family, first.stats!.median)}`, first.run),
      num(`${formatMetric(family, latest.stats!.median)}`, latest.run),
      num(
        first.stats!.median !== 0 && measured.length > 1
          ? formatSignedPercent(latest.stats!.median / first.stats!.median - 1)
          : "–",
      ),
      num(String(count("regression") + count("failed"))),
      num(String(count("improvement"))),
    ];
  });
  return table(
    [
      "case",
      "metric",
      "runs",
      "first (median)",
      "latest (median)",
      "first → latest",
      "regressions",
      "improvements",
    ],
    rows,
  );
}

/** Every regression (or failure) against the run before, in run order. */
export function trendRegressionTable(trend: Trend): string {
  if (trend.regressions.length === 0)
    return `<p>No run regressed against the run before it (threshold ${trend.options.threshold * 100}%, alpha ${trend.options.alpha}).</p>`;
  const rows = trend.regressions.map(({ case: id, metric, point }) => {
    const { family, title } = METRIC_INFO[metric];
    return [
      code(id),
      title,
      point.run,
      point.start ?? "–",
      commitLabel(point),
      point.previous ?? "–",
      num(point.stats ? formatMetric(family, point.stats.median) : "–"),
      num(point.change !== undefined ? formatSignedPercent(point.change) : "–"),
      num(
        point.changeCi95
          ? `${formatSignedPercent(point.changeCi95[0])} … ${formatSignedPercent(point.changeCi95[1])}`
          : "–",
      ),
      num(point.p !== undefined ? formatNumber(point.p) : "–"),
      {
        html: `<span class="verdict fail">${escapeHtml(point.verdict!)}</span>${point.verdict === "failed" ? ` <span class="note">${point.failed} of ${point.repetitions} repetitions failed</span>` : ""}`,
      },
    ];
  });
  return table(
    ["case", "metric", "run", "start", "commit", "against", "median", "change", "95% CI", "p", "verdict"],
    rows,
    "compare",
  );
}
