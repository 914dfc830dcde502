/**
 * summary.json: per case, the statistics over its measured repetitions and the warnings a reader should
 * see; failed repetitions are counted as failures and never averaged in. Then the expect assertions.
 */
import { caseIdentity } from "../plan/identity.js";
import type { Case, Plan, PlannedExpect } from "../plan/types.js";
import { engineParams } from "../spec/engines.js";
import { METRICS, type Metric } from "../spec/metrics.js";
import { METRIC_INFO } from "./metrics.js";
import type { ResultRow } from "./row.js";
import { statWarnings, summarize, type Stats } from "./stats.js";

export interface CaseSummary {
  id: string;
  workload: string;
  target: string;
  engine: string;
  op: string;
  params: Case["params"];
  repetitions: number;
  failed: number;
  errors: string[];
  metrics: Partial<Record<Metric, Stats>>;
  warnings: string[];
}

export interface ExpectResult {
  index: number;
  workload: string;
  case: string;
  metric: Metric;
  /** The median of the case's measured repetitions. */
  measured?: number;
  atLeast?: number;
  atMost?: number;
  pass: boolean;
  reason?: string;
}

export interface RunSummary {
  cases: CaseSummary[];
  expect: ExpectResult[];
  failedCases: string[];
  failedExpectations: number;
}

/** Event-loop utilization (of the median repetition) above which the client, not the storage, is likely the limit. */
export const CLIENT_BOUND = 0.9;

/** `rows` may hold every case's rows (they are filtered), or only this case's. */
export function summarizeCase(c: Case, rows: readonly ResultRow[]): CaseSummary {
  const measured = rows.filter((row) => row.case === c.id && !row.warmup);
  const ok = measured.filter((row) => row.ok);
  const failed = measured.filter((row) => !row.ok);
  const metrics: CaseSummary["metrics"] = {};
  const warnings: string[] = [];
  for (const metric of METRICS) {
    const values = ok
      .map(METRIC_INFO[metric].of)
      .filter((v): v is number => v !== undefined && Number.isFinite(v));
    const stats = values.length === ok.length ? summarize(values) : undefined;
    if (!stats) continue;
    metrics[metric] = stats;
    // Throughput and IOPS vary together; one set of warnings says it.
    if (metric === "throughput") warnings.push(...statWarnings(stats, metric));
  }
  if (ok.some((row) => row.steady && !row.steady.attained))
    warnings.push("steady state not attained within the duration");
  // The median repetition, like the statistics reported: a first repetition with a cold JIT and new
  // connections alone does not make the case's numbers the client's.
  const busy = summarize(ok.flatMap((row) => row.client?.eventLoopUtilization ?? []))?.median ?? 0;
  if (busy > CLIENT_BOUND) {
    warnings.push(
      `client-bound: benchspec's event loop was busy ${(busy * 100).toFixed(0)}% of the time, so these numbers may measure the client, not the storage${engineParams(c.engine).has("threads") ? "; more client threads may help (`threads: N`)" : ""}`,
    );
  }
  return {
    ...caseIdentity(c),
    repetitions: measured.length,
    failed: failed.length,
    errors: [...new Set(failed.map((row) => row.error ?? "failed"))],
    metrics,
    warnings: [...new Set(warnings)],
  };
}

export function evaluateExpectations(
  expectations: readonly PlannedExpect[],
  cases: readonly CaseSummary[],
): ExpectResult[] {
  return expectations.flatMap((expect) =>
    expect.cases.map((id): ExpectResult => {
      const summary = cases.find((c) => c.id === id);
      const measured = summary?.metrics[expect.metric]?.median;
      const base = {
        index: expect.index,
        workload: expect.workload,
        case: id,
        metric: expect.metric,
        ...(expect.atLeast !== undefined && { atLeast: expect.atLeast }),
        ...(expect.atMost !== undefined && { atMost: expect.atMost }),
      };
      if (measured === undefined || !summary || summary.failed > 0) {
        return { ...base, pass: false, reason: "no successful measurement" };
      }
      const pass =
        (expect.atLeast === undefined || measured >= expect.atLeast) &&
        (expect.atMost === undefined || measured <= expect.atMost);
      return { ...base, measured, pass };
    }),
  );
}

export function buildSummary(plan: Plan, rows: readonly ResultRow[]): RunSummary {
  const byCase = new Map<string, ResultRow[]>();
  for (const row of rows) byCase.set(row.case, [...(byCase.get(row.case) ?? []), row]);
  const cases = plan.cases.map((c) => summarizeCase(c, byCase.get(c.id) ?? []));
  const expect = evaluateExpectations(plan.expect, cases);
  return {
    cases,
    expect,
    failedCases: cases.filter((c) => c.failed > 0).map((c) => c.id),
    failedExpectations: expect.filter((e) => !e.pass).length,
  };
}
