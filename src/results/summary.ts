/**
 * summary.json: per case, the statistics over its measured repetitions and the warnings a reader should
 * see; failed repetitions are counted as failures and never averaged in. Then the expect assertions.
 */
import { caseIdentity } from "../plan/identity.js";
import type { Case, Plan, PlannedExpect } from "../plan/types.js";
import { engineParams } from "../spec/engines.js";
import { METRICS, type Metric } from "../spec/metrics.js";
import { METRIC_INFO } from "./metrics.js";
import { combineSummaries } from "../telemetry/summary.js";
import { SELF, type TelemetrySummary } from "../telemetry/types.js";
import { describeSaturation, saturation, type NicLimit } from "../telemetry/verdict.js";
import type { ResultRow } from "./row.js";
import { summarizeAllRounds, windowRows, type RoundsByWorkload } from "./rounds-summary.js";
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
  /** What each client host did over the measured repetitions, and which of its resources were saturated. */
  telemetry?: HostTelemetry[];
}

export interface HostTelemetry {
  /** In a case run on several hosts; absent for the one host of a local run. */
  host?: string;
  summary: TelemetrySummary;
  /** One line per saturated resource (verdict.ts); empty when the host had room on every one measured. */
  saturated: string[];
}

/** The part of a result row hostTelemetry reads. */
export interface TelemetryOf {
  telemetry?: TelemetrySummary;
  hosts?: readonly { host: string; telemetry?: TelemetrySummary }[];
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

export interface RunSummary {
  cases: CaseSummary[];
  expect: ExpectResult[];
  failedCases: string[];
  /** Expectations not met; those of cases that did not run are counted apart. */
  failedExpectations: number;
  unrunExpectations: number;
  /**
   * Per workload run in rounds, per target (each target's rounds are judged on their own): the rounds, the
   * steady-state verdict and the measurement window.
   */
  rounds?: RoundsByWorkload;
}

/**
 * `rows` may hold every case's rows (they are filtered), or only this case's. `nics`: the network
 * interfaces whose capacity the spec declares (their saturation needs it).
 */
export function summarizeCase(
  c: Case,
  rows: readonly ResultRow[],
  nics: readonly NicLimit[] = [],
): CaseSummary {
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
  const telemetry = hostTelemetry(ok, nics);
  for (const { host, summary } of telemetry) {
    const client = saturation(summary, nics).filter((found) => found.resource !== "device");
    if (client.length === 0) continue;
    const ownThread = client.some((found) => found.resource === "thread" && found.process === SELF);
    warnings.push(
      `client-bound${host ? ` on ${host}` : ""}: ${client.map(describeSaturation).join("; ")}, so these numbers may measure the client, not the storage${ownThread && engineParams(c.engine).has("threads") ? "; more client threads may help (`threads: N`)" : ""}`,
    );
  }
  return {
    ...caseIdentity(c),
    repetitions: measured.length,
    failed: failed.length,
    errors: [...new Set(failed.map((row) => row.error ?? "failed"))],
    metrics,
    warnings: [...new Set(warnings)],
    ...(telemetry.length > 0 && { telemetry }),
  };
}

/**
 * Each host's telemetry over the measured repetitions (a row of several hosts has it per host). Rows need
 * only their telemetry: the report passes each case's, combined as it streamed past.
 */
export function hostTelemetry(rows: readonly TelemetryOf[], nics: readonly NicLimit[]): HostTelemetry[] {
  const byHost = new Map<string | undefined, TelemetrySummary[]>();
  const add = (host: string | undefined, summary: TelemetrySummary | undefined) => {
    if (summary) byHost.set(host, [...(byHost.get(host) ?? []), summary]);
  };
  for (const row of rows) {
    add(undefined, row.telemetry);
    for (const part of row.hosts ?? []) add(part.host, part.telemetry);
  }
  return [...byHost].flatMap(([host, summaries]) => {
    const summary = combineSummaries(summaries);
    if (!summary) return [];
    const saturated = saturation(summary, nics).map(describeSaturation);
    return [{ ...(host !== undefined && { host }), summary, saturated }];
  });
}

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
  cases: readonly CaseSummary[],
): ExpectResult[] {
  return expectations.flatMap((expect) =>
    expect.cases.map((id): ExpectResult => {
      const summary = cases.find((c) => c.id === id);
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

export function buildSummary(plan: Plan, rows: readonly ResultRow[]): RunSummary {
  const byCase = new Map<string, ResultRow[]>();
  for (const row of rows) byCase.set(row.case, [...(byCase.get(row.case) ?? []), row]);
  const nics = nicLimits(plan);
  const rounds = summarizeAllRounds(plan, rows);
  // A workload run in rounds is summarised over its target's measurement window's rounds only.
  const caseRows = (c: Case) => {
    const own = byCase.get(c.id) ?? [];
    const summary = rounds[c.workload]?.[c.target];
    return summary ? windowRows(summary, own) : own;
  };
  const cases = plan.cases.map((c) => summarizeCase(c, caseRows(c), nics));
  const expect = evaluateExpectations(plan.expect, cases);
  return {
    cases,
    expect,
    failedCases: cases.filter((c) => c.failed > 0).map((c) => c.id),
    failedExpectations: expect.filter((e) => e.status === "not met").length,
    unrunExpectations: expect.filter((e) => e.status === "not run").length,
    ...(Object.keys(rounds).length > 0 && { rounds }),
  };
}
