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
  /** Met or not met by the median; not run when the case has no measured repetition (interrupted, skipped). */
  status: ExpectStatus;
  /** status === "met". */
  pass: boolean;
  reason?: string;
}

export type ExpectStatus = "met" | "not met" | "not run";

export interface RunSummary {
  cases: CaseSummary[];
  expect: ExpectResult[];
  failedCases: string[];
  /** Expectations not met; those of cases that did not run are counted apart. */
  failedExpectations: number;
  unrunExpectations: number;
}

/**
 * A repetition was likely limited by benchspec itself when both hold: its busiest event loop was busy more
 * than `eventLoop` of the time, and the process used at least `cpuShare` CPU-seconds per second of the
 * repetition. Utilization alone is no evidence: a short repetition that mostly waited can read 95% busy
 * while using 0.09 CPU-seconds in 0.6 s.
 */
export const CLIENT_BOUND = { eventLoop: 0.9, cpuShare: 0.5 };

const cpuShare = (row: ResultRow) =>
  row.client && row.seconds > 0 ? row.client.cpuSeconds / row.seconds : 0;

const clientBound = (row: ResultRow) =>
  (row.client?.eventLoopUtilization ?? 0) > CLIENT_BOUND.eventLoop && cpuShare(row) >= CLIENT_BOUND.cpuShare;

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
  // Most repetitions, like the median the statistics report: a first repetition with a cold JIT and new
  // connections alone does not make the case's numbers the client's.
  const bound = ok.filter(clientBound);
  if (bound.length > 0 && bound.length * 2 > ok.length) {
    const busy = summarize(bound.map((row) => row.client!.eventLoopUtilization))!.median;
    const cpu = summarize(bound.map(cpuShare))!.median;
    warnings.push(
      `client-bound: in ${bound.length} of ${ok.length} repetitions benchspec's event loop was busy ${(busy * 100).toFixed(0)}% of the time and used ${cpu.toFixed(2)} CPU-seconds per second, so these numbers may measure the client, not the storage${engineParams(c.engine).has("threads") ? "; more client threads may help (`threads: N`)" : ""}`,
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
      // A case the run never reached (Ctrl-C, an unavailable engine) has not failed its expectation.
      if (!summary || summary.repetitions === 0)
        return { ...base, status: "not run", pass: false, reason: "not run" };
      if (measured === undefined || summary.failed > 0) {
        return { ...base, status: "not met", pass: false, reason: "no successful measurement" };
      }
      const pass =
        (expect.atLeast === undefined || measured >= expect.atLeast) &&
        (expect.atMost === undefined || measured <= expect.atMost);
      return { ...base, measured, status: pass ? "met" : "not met", pass };
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
    failedExpectations: expect.filter((e) => e.status === "not met").length,
    unrunExpectations: expect.filter((e) => e.status === "not run").length,
  };
}
