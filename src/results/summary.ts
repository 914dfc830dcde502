/**
 * summary.json: the run model's figures (model/) of every case — statistics over its measured
 * repetitions, failures counted apart and never averaged in, warnings — then the expect assertions and
 * the rounds of workloads run to steady state. Nothing here computes a figure: it lays out the model's.
 */
import type { Case, Plan } from "../plan/types.js";
import { RunModel, type ModelPlan, type RowLike, type RunFigures } from "./model/accumulator.js";
import { nicLimits, type ExpectResult } from "./model/expect.js";
import type { NicLimit } from "../telemetry/verdict.js";
import type { RoundsByWorkload } from "./rounds-summary.js";
import type { CaseFigures } from "./model/types.js";

export { evaluateExpectations, nicLimits, type ExpectResult, type ExpectStatus } from "./model/expect.js";
export type { HostTelemetry } from "./model/types.js";

/** A case in summary.json: its figures without the per-repetition samples (compare reads those from rows). */
export type CaseSummary = Omit<CaseFigures, "samples">;

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

/** A case's figures for summary.json and the console. */
export const caseSummary = ({ samples: _samples, ...figures }: CaseFigures): CaseSummary => figures;

/** summary.json from what the model decided. */
export function summaryOf(figures: RunFigures): RunSummary {
  const { expect, rounds } = figures;
  const cases = figures.cases.map(caseSummary);
  return {
    cases,
    expect,
    failedCases: cases.filter((c) => c.failed > 0).map((c) => c.id),
    failedExpectations: expect.filter((e) => e.status === "not met").length,
    unrunExpectations: expect.filter((e) => e.status === "not run").length,
    ...(Object.keys(rounds).length > 0 && { rounds }),
  };
}

/**
 * summary.json of a plan's rows (rows of cases outside the plan are left out): a Plan, or compile's plan.json
 * of it, which holds what the figures are decided by.
 */
export function buildSummary(
  plan: ModelPlan & Pick<Plan, "expect" | "report">,
  rows: Iterable<RowLike>,
): RunSummary {
  const model = new RunModel(plan, { series: false });
  for (const row of rows) model.addRow(row);
  return summaryOfModel(plan, model);
}

/** summary.json of the rows `model`, made with `plan`, folded in. */
export function summaryOfModel(
  plan: ModelPlan & Pick<Plan, "expect" | "report">,
  model: RunModel,
): RunSummary {
  const figures = model.finish(plan.expect, nicLimits(plan));
  const planned = new Set(plan.cases.map((c) => c.id));
  return summaryOf({ ...figures, cases: figures.cases.filter((c) => planned.has(c.id)) });
}

/** One case's figures from its rows (rows of other cases are left out). */
export function summarizeCase(c: Case, rows: Iterable<RowLike>, nics: readonly NicLimit[] = []): CaseSummary {
  const model = new RunModel({ cases: [c] });
  for (const row of rows) if (row.case === c.id) model.addRow(row);
  return caseSummary(model.figures(c.id, nics)!);
}
