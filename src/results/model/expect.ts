/**
 * The spec's expectations judged against the case model's figures: each case's median against its bounds.
 */
import type { Plan, PlannedExpect } from "../../plan/types.js";
import type { Metric } from "../../rows/metric-names.js";
import type { NicLimit } from "../../telemetry/verdict.js";
import type { CaseFigures } from "./types.js";

export interface ExpectResult {
  index: number;
  workload: string;
  case: string;
  metric: Metric;
  /** The median of the case's measured repetitions. */
  measured?: number;
  atLeast?: number;
  atMost?: number;
  /** The bounds as written, when formulas ("min(1000 + 6 * capacityGiB, 3000)"). */
  atLeastText?: string;
  atMostText?: string;
  /** The target whose vars gave this case its bounds (absent: the spec's vars). */
  target?: string;
  /** Met or not met by the median; not run when the case has no measured repetition (interrupted, skipped). */
  status: ExpectStatus;
  /** status === "met". */
  pass: boolean;
  reason?: string;
}

export type ExpectStatus = "met" | "not met" | "not run";

/** The network interfaces whose capacity the spec's report limits declare. */
export function nicLimits(plan: Pick<Plan, "report">): NicLimit[] {
  return (plan.report.limits ?? []).flatMap((limit) =>
    limit.interface !== undefined && limit.throughput !== undefined
      ? [{ interface: limit.interface, throughput: limit.throughput, label: limit.label }]
      : [],
  );
}

export function evaluateExpectations(
  expectations: readonly PlannedExpect[],
  cases: readonly Pick<CaseFigures, "id" | "repetitions" | "failed" | "metrics">[],
): ExpectResult[] {
  const byId = new Map(cases.map((c) => [c.id, c] as const));
  return expectations.flatMap((expect) =>
    expect.cases.map((id): ExpectResult => {
      const summary = byId.get(id);
      const measured = summary?.metrics[expect.metric]?.median;
      // A case on a target with vars of its own has its own bounds.
      const bounds = expect.byCase?.[id] ?? expect;
      const base = {
        index: expect.index,
        workload: expect.workload,
        case: id,
        metric: expect.metric,
        ...(bounds.atLeast !== undefined && { atLeast: bounds.atLeast }),
        ...(bounds.atMost !== undefined && { atMost: bounds.atMost }),
        ...(bounds.atLeast !== undefined && expect.atLeastText && { atLeastText: expect.atLeastText }),
        ...(bounds.atMost !== undefined && expect.atMostText && { atMostText: expect.atMostText }),
        ...(expect.byCase?.[id] && { target: expect.byCase[id].target }),
      };
      // A case the run never reached (Ctrl-C, an unavailable engine) has not failed its expectation.
      if (!summary || summary.repetitions === 0)
        return { ...base, status: "not run", pass: false, reason: "not run" };
      if (measured === undefined || summary.failed > 0) {
        return { ...base, status: "not met", pass: false, reason: "no successful measurement" };
      }
      const pass =
        (bounds.atLeast === undefined || measured >= bounds.atLeast) &&
        (bounds.atMost === undefined || measured <= bounds.atMost);
      return { ...base, measured, status: pass ? "met" : "not met", pass };
    }),
  );
}
