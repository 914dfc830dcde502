/**
 * A comparison of two runs: per case, the change in median (new vs base) with its 95% bootstrap interval,
 * coloured by verdict; the threshold as dashed rules either side of zero.
 */
import type { Comparison } from "../../results/compare.js";
import { FAIL_COLOR, PASS_COLOR, type Chart, type VlSpec } from "./common.js";
import { compareRows } from "./compare-data.js";
import { compose } from "./compose.js";

const VERDICT_COLORS: Record<string, string> = {
  regression: FAIL_COLOR,
  improvement: PASS_COLOR,
  "within threshold": "#e0a800",
  "~": "#9e9e9e",
};

export function compareChart(comparison: Comparison, id: string): Chart | undefined {
  const rows = compareRows(comparison);
  if (rows.length === 0) return undefined;
  const threshold = comparison.options.threshold * 100;
  const title = `Comparison: ${comparison.new} vs ${comparison.base}`;
  return {
    id,
    kind: "compare",
    title,
    caption: [
      `Points: the change in median from ${comparison.base} (base) to ${comparison.new}; whiskers: 95% bootstrap interval. Dashed lines: the ±${threshold}% threshold. A change counts only when it is significant: Mann–Whitney p < ${comparison.options.alpha}, or, with too few repetitions for that test to reach it, a bootstrap interval of the change that excludes 0; otherwise it is “~”. For latency and time, a rise is a regression.`,
    ],
    points: rows.length,
    spec: compose({
      title,
      rows,
      width: 520,
      height: Math.max(40, rows.length * 22),
      layers: [...thresholdLayers(threshold), ...changeLayers(rows.map((r) => r.lab as string))],
    }),
  };
}

/** Zero, and the threshold either side of it. */
function thresholdLayers(threshold: number): VlSpec[] {
  return [
    { mark: { type: "rule", color: "#111" }, encoding: { x: { datum: 0 } } },
    { mark: { type: "rule", color: "#777", strokeDash: [4, 4] }, encoding: { x: { datum: -threshold } } },
    { mark: { type: "rule", color: "#777", strokeDash: [4, 4] }, encoding: { x: { datum: threshold } } },
  ];
}

/** Per case, in the order given: the interval as a whisker and the change as a point, coloured by verdict. */
function changeLayers(order: string[]): VlSpec[] {
  const domain = Object.keys(VERDICT_COLORS);
  const y = { field: "lab", type: "nominal", title: null, sort: order, axis: { labelLimit: 360 } };
  const color = {
    field: "st",
    type: "nominal",
    title: "verdict",
    scale: { domain, range: domain.map((d) => VERDICT_COLORS[d]) },
  };
  return [
    {
      transform: [{ filter: { field: "lo", valid: true } }],
      mark: { type: "rule", size: 1.5 },
      encoding: {
        y,
        x: { field: "lo", type: "quantitative", title: "change in median (%)" },
        x2: { field: "hi" },
        color,
      },
    },
    {
      mark: { type: "point", filled: true, size: 70 },
      encoding: {
        y,
        x: { field: "y", type: "quantitative", title: "change in median (%)" },
        color,
        tooltip: [
          { field: "lab", title: "case" },
          { field: "m", title: "metric" },
          { field: "ch", title: "change" },
          { field: "ci", title: "95% CI" },
          { field: "p", title: "Mann–Whitney p" },
          { field: "te", title: "decided by" },
          { field: "st", title: "verdict" },
        ],
      },
    },
  ];
}
