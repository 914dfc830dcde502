/**
 * What summary.json and the report say about a workload run in rounds, per target (each target's rounds are
 * judged on their own): every case's tracked metric per round (the convergence plot), where the rounds
 * stand (steady-rounds.ts) and the measurement window, whose rounds alone make the cases' figures.
 */
import { targetRounds, type Plan, type TargetRounds } from "../plan/types.js";
import { METRIC_INFO, type MeasuredFields } from "../rows/metrics.js";
import type { ResultRow } from "../rows/row.js";
import { roundsOutcome, type RoundCriteria, type RoundStatus, type RoundWindow } from "./steady-rounds.js";

export interface RoundsSummary {
  /** The target these rounds ran on. */
  target: string;
  track: TargetRounds["track"];
  criteria: RoundCriteria;
  status: RoundStatus;
  /** Rounds run, counted up to the last one with the tracked case measured. */
  rounds: number;
  window?: RoundWindow;
  /** Every case's tracked metric in every measured round. */
  values: { case: string; round: number; value: number }[];
}

/** summary.json's `rounds`: per workload, per target. */
export type RoundsByWorkload = Record<string, Record<string, RoundsSummary>>;

type RoundRow = Pick<ResultRow, "case" | "target" | "repetition" | "warmup" | "ok"> & MeasuredFields;

/** The tracked case's value in rounds 1, 2, … up to the first round it lacks. */
export function trackedValues(rounds: TargetRounds, rows: readonly RoundRow[]): number[] {
  const byRound = new Map<number, number>();
  for (const row of measuredRows(rows)) {
    const value = METRIC_INFO[rounds.track.metric].of(row);
    if (row.case === rounds.track.case && value !== undefined) byRound.set(row.repetition, value);
  }
  const values: number[] = [];
  for (let round = 1; byRound.has(round); round++) values.push(byRound.get(round)!);
  return values;
}

/** One target's rounds of a workload, from the workload's rows (those of other targets are left out). */
export function summarizeRounds(rounds: TargetRounds, rows: readonly RoundRow[]): RoundsSummary {
  const outcome = roundsOutcome(trackedValues(rounds, rows), rounds);
  const { metric } = rounds.track;
  const values: RoundsSummary["values"] = [];
  // One loop, no array per row: a workload of a million rows in rounds spent seconds collecting them.
  for (const row of rows) {
    if (row.target !== rounds.target || row.warmup || !row.ok || row.repetition > outcome.rounds) continue;
    const value = METRIC_INFO[metric].of(row);
    if (value !== undefined) values.push({ case: row.case, round: row.repetition, value });
  }
  return {
    target: rounds.target,
    track: rounds.track,
    criteria: { window: rounds.window, excursion: rounds.excursion, slope: rounds.slope, max: rounds.max },
    status: outcome.status,
    rounds: outcome.rounds,
    ...(outcome.window && { window: outcome.window }),
    values,
  };
}

/** The rows a workload's case figures are made of: those of the measurement window's rounds only. */
export function windowRows<R extends Pick<ResultRow, "repetition">>(
  summary: RoundsSummary,
  rows: readonly R[],
): R[] {
  const first = summary.window?.first ?? 1;
  const last = summary.window?.last ?? summary.rounds;
  return rows.filter((row) => row.repetition >= first && row.repetition <= last);
}

/** Every workload of the plan that runs in rounds, each target's rounds summarised. */
export function summarizeAllRounds(
  plan: Pick<Plan, "workloads">,
  rows: readonly (RoundRow & Pick<ResultRow, "workload">)[],
): RoundsByWorkload {
  return Object.fromEntries(
    Object.entries(plan.workloads).flatMap(([name, w]) => {
      if (!w.rounds) return [];
      const own = rows.filter((row) => row.workload === name);
      const byTarget = targetRounds(w.rounds).map((r) => [r.target, summarizeRounds(r, own)] as const);
      return [[name, Object.fromEntries(byTarget)] as const];
    }),
  );
}

const measuredRows = <R extends Pick<ResultRow, "warmup" | "ok">>(rows: readonly R[]) =>
  rows.filter((row) => !row.warmup && row.ok);
