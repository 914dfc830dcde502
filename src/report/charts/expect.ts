/**
 * Expect results: per assertion and case, the measured median as a percentage of its bound (so
 * throughput, IOPS and latency bounds share one axis), green when met, red when not; the 100% rule is the
 * bound itself.
 */
import { formatMetric, METRIC_FAMILY, METRIC_TITLE } from "../format.js";
import {
  compose,
  FAIL_COLOR,
  PASS_COLOR,
  round,
  type Chart,
  type ChartContext,
  type VlSpec,
} from "./common.js";

export function expectChart(ctx: ChartContext, id: string): Chart | undefined {
  const rows: VlSpec[] = [];
  const multi = ctx.runs.length > 1;
  for (const run of ctx.runs) {
    for (const result of run.expect) {
      const family = METRIC_FAMILY[result.metric];
      for (const [bound, sign] of [
        [result.atLeast, "≥"],
        [result.atMost, "≤"],
      ] as const) {
        if (bound === undefined) continue;
        const label = `${multi ? `${run.label}: ` : ""}#${result.index} ${result.case} ${METRIC_TITLE[result.metric]} ${sign} ${formatMetric(family, bound)}`;
        rows.push({
          k: "e",
          lab: label,
          ...(result.measured !== undefined && bound > 0 && { y: round((result.measured / bound) * 100) }),
          st: result.pass ? "pass" : "fail",
          m:
            result.measured !== undefined
              ? formatMetric(family, result.measured)
              : (result.reason ?? "no measurement"),
          b: `${sign} ${formatMetric(family, bound)}`,
        });
      }
    }
  }
  if (rows.length === 0) return undefined;
  const order = rows.map((r) => r.lab as string);
  const title = "Expectations: measured vs expected";
  return {
    id,
    kind: "expect",
    title,
    caption: [
      "Bars: the measured median as a percentage of the expected bound; the black line is the bound (100%). An “at least” bound passes at or right of it, an “at most” bound at or left of it.",
    ],
    points: rows.length,
    spec: compose({
      title,
      rows,
      width: 520,
      height: Math.max(40, rows.length * 22),
      layers: [
        {
          mark: { type: "bar", height: { band: 0.7 } },
          encoding: {
            y: { field: "lab", type: "nominal", title: null, sort: order, axis: { labelLimit: 360 } },
            x: {
              field: "y",
              type: "quantitative",
              title: "measured, % of the expected bound",
              axis: { format: "~s", tickCount: 6 },
            },
            color: {
              field: "st",
              type: "nominal",
              title: "expect",
              scale: { domain: ["pass", "fail"], range: [PASS_COLOR, FAIL_COLOR] },
            },
            tooltip: [
              { field: "lab", title: "assertion" },
              { field: "m", title: "measured (median)" },
              { field: "b", title: "expected" },
              { field: "st", title: "result" },
            ],
          },
        },
        { mark: { type: "rule", color: "#111", size: 1.5 }, encoding: { x: { datum: 100 } } },
      ],
    }),
  };
}
