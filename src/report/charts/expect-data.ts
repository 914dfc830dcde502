/**
 * The expect chart's data: per assertion, case and bound, the measured median as a percentage of the
 * bound (so throughput, IOPS and latency bounds share one axis).
 */
import { METRIC_INFO } from "../../rows/metrics.js";
import type { ExpectResult } from "../../results/summary.js";
import { formatMetric } from "../format.js";
import type { RunData } from "../model.js";
import { round, type VlSpec } from "./common.js";

/** The bounds of an assertion: "at least" and "at most", each with its sign. */
export function expectBounds(result: ExpectResult): { bound: number; sign: "≥" | "≤" }[] {
  return [
    ...(result.atLeast !== undefined ? [{ bound: result.atLeast, sign: "≥" as const }] : []),
    ...(result.atMost !== undefined ? [{ bound: result.atMost, sign: "≤" as const }] : []),
  ];
}

/** Kind "e": one row per bound of every run's assertions; labelled by run when there are several. */
export function expectRows(runs: readonly RunData[]): VlSpec[] {
  const multi = runs.length > 1;
  return runs.flatMap((run) =>
    run.expect.flatMap((result) => {
      const { title, family } = METRIC_INFO[result.metric];
      return expectBounds(result).map(({ bound, sign }) => ({
        k: "e",
        lab: `${multi ? `${run.label}: ` : ""}#${result.index} ${result.case} ${title} ${sign} ${formatMetric(family, bound)}`,
        ...(result.measured !== undefined && bound > 0 && { y: round((result.measured / bound) * 100) }),
        st: result.pass ? "pass" : "fail",
        m:
          result.measured !== undefined
            ? formatMetric(family, result.measured)
            : (result.reason ?? "no measurement"),
        b: `${sign} ${formatMetric(family, bound)}`,
      }));
    }),
  );
}
