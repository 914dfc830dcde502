/**
 * Expect results: per assertion and case, the measured median as a percentage of its bound, green when
 * met, red when not; the 100% rule is the bound itself.
 */
import { compose } from "./compose.js";
import { FAIL_COLOR, PASS_COLOR, type Chart, type ChartContext, type VlSpec } from "./common.js";
import { expectRows } from "./expect-data.js";

export function expectChart(ctx: ChartContext, id: string): Chart | undefined {
  const rows = expectRows(ctx.runs);
  if (rows.length === 0) return undefined;
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
        ratioLayer(rows.map((r) => r.lab as string)),
        { mark: { type: "rule", color: "#111", size: 1.5 }, encoding: { x: { datum: 100 } } },
      ],
    }),
  };
}

/** One bar per bound, in the order of the rows, coloured by pass or fail. */
function ratioLayer(order: string[]): VlSpec {
  return {
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
  };
}
