/**
 * The report's data model: what the loaders produce and the chart and table builders read. Everything
 * here is already aggregated (per case statistics, downsampled series), so its size does not grow with
 * the number of result rows.
 */
import type { PlannedExpect, PlannedLimit, PlannedReport, PlannedRounds } from "../plan/types.js";
import type { SteadyWindow } from "../results/import-fio.js";
import type { ExpectResult } from "../results/model/expect.js";
import type { CaseFigures, PlanCase, SeriesAgg } from "../results/model/types.js";
import type { RoundsByWorkload } from "../results/rounds-summary.js";
import type { Provenance, RunState } from "../results/run-dir.js";
import type { TelemetryRow } from "../rows/telemetry.js";

/** The case model's types, which the report reads (results/model/ decides every figure). */
export type {
  AutotuneResult,
  AutotuneRound,
  CaseFigures,
  CaseHosts,
  HostAgg,
  PlanCase,
  RepetitionSeries,
  SeriesAgg,
  SeriesPoint,
} from "../results/model/types.js";

export type ReportSection = PlannedReport;
export type ChartRequest = NonNullable<ReportSection["charts"]>[number];
export type Limit = PlannedLimit;

/** What the report needs of a plan: plan.json's fields (description and workloads where present). */
export interface PlanLike {
  name: string;
  description?: string;
  specHash?: string;
  vars: Record<string, number>;
  targets: Record<string, { kind?: string; description?: string } & Record<string, unknown>>;
  cases: PlanCase[];
  expect: PlannedExpect[];
  report: ReportSection;
  workloads?: Record<string, { description?: string; rounds?: PlannedRounds }>;
}

export type InputKind = "run" | "results" | "fio";

export interface RunData {
  /** Unique within a report: shown in legends and tables. */
  label: string;
  path: string;
  kind: InputKind;
  plan: PlanLike;
  /** True when there was no plan.json and the cases were derived from the rows. */
  planDerived: boolean;
  provenance?: Provenance;
  state?: RunState;
  rows: { total: number; measured: number; warmup: number; failed: number; sources: string[] };
  cases: CaseFigures[];
  expect: ExpectResult[];
  series: SeriesAgg[];
  steady: SteadyWindow[];
  /** Workloads run in rounds to steady state, by name, then target (absent when none ran in rounds). */
  rounds?: RoundsByWorkload;
  /**
   * Where the host telemetry samples are (a run directory's telemetry.ndjson, or rows in memory): read
   * only for the cases a time-series chart draws (charts/telemetry.ts). Absent: no samples.
   */
  telemetry?: { file: string } | { rows: readonly TelemetryRow[] };
  /** Problems met while loading (skipped lines, rows without a plan case, …). */
  notes: string[];
}
