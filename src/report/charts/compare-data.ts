/** A comparison chart's data: per case (and metric) the change in median in percent, with its interval. */
import type { CaseComparison, Comparison } from "../../results/compare.js";
import { METRIC_INFO } from "../../rows/metrics.js";
import { formatNumber, formatSignedPercent } from "../format.js";
import type { VlSpec } from "./common.js";

const TEST_NAMES: Record<NonNullable<CaseComparison["test"]>, string> = {
  ci: "confidence interval",
  "mann-whitney": "Mann–Whitney U",
};

const percent = (fraction: number) => Number((fraction * 100).toFixed(3));

/** Cases with a change (both runs measured them); labelled with the metric when several are compared. */
export function compareRows(comparison: Comparison): VlSpec[] {
  const multiMetric = comparison.options.metrics.length > 1;
  return comparison.cases
    .filter((c) => c.change !== undefined)
    .map((c) => {
      const { title } = METRIC_INFO[c.metric];
      return {
        lab: multiMetric ? `${c.case} (${title})` : c.case,
        y: percent(c.change!),
        ...(c.ci95 && { lo: percent(c.ci95[0]), hi: percent(c.ci95[1]) }),
        st: c.verdict,
        ch: formatSignedPercent(c.change!),
        ci: c.ci95 ? `${formatSignedPercent(c.ci95[0])} … ${formatSignedPercent(c.ci95[1])}` : "–",
        p: c.p !== undefined ? formatNumber(c.p) : "–",
        te: c.test ? TEST_NAMES[c.test] : "–",
        m: title,
      };
    });
}
