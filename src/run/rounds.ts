/**
 * One target's rounds of a workload run to steady state (SNIA PTS judges each device on its own; a workload
 * over several targets runs one such loop per target, one after the other): each round runs every case of
 * the workload on that target once, in matrix order, as the repetition numbered like the round; after each
 * round the tracked case's values are
 * checked (results/steady-rounds.ts) and the rounds stop at the first steady window or at `max`. Everything
 * is read from the run model (fed the rows of results.ndjson on --resume), so --resume continues where the rows end: a round cut short is completed
 * (its missing cases only), then the rounds go on.
 */
import type { Measurement } from "../engines/types.js";
import type { Case, TargetRounds } from "../plan/types.js";
import type { RowLike } from "../results/model/accumulator.js";
import { trackedValues } from "../results/rounds-summary.js";
import { roundsOutcome, type RoundsOutcome } from "../results/steady-rounds.js";
import type { CaseSummary } from "../results/summary.js";
import type { OpenCase } from "../execution/case-steps.js";
import type { RunObserver } from "../execution/observer.js";

/** How the runner opens a case, measures and records one of its repetitions, and closes it. */
export interface CaseRunner {
  open(c: Case): Promise<OpenCase>;
  /** Measures and records the repetition (not recorded when Ctrl-C cut it short). */
  repetition(open: OpenCase, c: Case, rep: number, warmup: boolean): Promise<Measurement | void>;
  close(open: OpenCase, c: Case): Promise<void>;
}

export interface RoundsOptions {
  /** The workload's cases on the rounds' target, in matrix order. */
  cases: readonly Case[];
  runner: CaseRunner;
  /** The measured rows of these rounds so far (the run model's). */
  rows: () => readonly RowLike[];
  /** A case's figures as the run model decides them (of the measurement window's rounds). */
  figures: (c: Case) => CaseSummary;
  /** Cases in the plan, for progress. */
  total: number;
  signal: AbortSignal;
  observer: RunObserver;
}

export async function runRounds(
  workload: string,
  rounds: TargetRounds,
  options: RoundsOptions,
): Promise<RoundsOutcome> {
  const { cases, runner, signal, observer } = options;
  const { rows } = options;
  const name = `workload ${workload} on ${rounds.target}`;
  const opened = new Map<string, OpenCase>();
  let outcome = roundsOutcome(trackedValues(rounds, rows()), rounds);
  const resumed = outcome.rounds;
  try {
    // Each round is tried once per run: a case that fails in it is not run again until --resume.
    const attempted = new Set<number>();
    while (!signal.aborted) {
      const done = new Map<number, Set<string>>();
      for (const row of rows())
        if (!row.warmup && row.ok)
          done.set(row.repetition, (done.get(row.repetition) ?? new Set()).add(row.case));
      // A round cut short (Ctrl-C) is completed before the next one starts, also the last one.
      const next = outcome.status === "incomplete" ? 1 : 0;
      const round = Array.from({ length: outcome.rounds + next }, (_, i) => i + 1).find(
        (r) => !attempted.has(r) && cases.some((c) => !done.get(r)?.has(c.id)),
      );
      if (round === undefined && outcome.status !== "incomplete") break;
      if (round === undefined) {
        // The tracked case failed in the last round: without its value the rounds cannot be judged.
        observer.message(
          `${name}: rounds stopped in round ${outcome.rounds + 1}: the tracked case ${rounds.track.case} failed`,
        );
        break;
      }
      attempted.add(round);
      let announced = false;
      for (const c of cases) {
        if (signal.aborted) break;
        if (done.get(round)?.has(c.id)) continue;
        // Opened first: the workload's purge and preconditioning (and the case's warm-ups) precede its
        // rounds, and are said before the round is.
        const open = opened.get(c.id) ?? (await openWithWarmups(c, runner, signal));
        opened.set(c.id, open);
        if (signal.aborted) break;
        if (!announced) {
          observer.message(`${name}: round ${round} (at most ${rounds.max})`);
          observer.roundStart?.(name, round, rounds.max);
        }
        announced = true;
        observer.caseStart(c, c.index + 1, options.total);
        await runner.repetition(open, c, round, false);
      }
      outcome = roundsOutcome(trackedValues(rounds, rows()), rounds);
    }
  } finally {
    for (const c of cases) {
      const open = opened.get(c.id);
      if (open) await runner.close(open, c);
    }
  }
  if (signal.aborted) return outcome;
  for (const c of cases) observer.caseDone(c, options.figures(c), opened.size === 0 && resumed > 0);
  observer.message(describeOutcome(workload, outcome, rounds));
  return outcome;
}

/** A case opened for its first round, its warm-ups run then (once, before its first measured round). */
async function openWithWarmups(c: Case, runner: CaseRunner, signal: AbortSignal): Promise<OpenCase> {
  const open = await runner.open(c);
  for (let rep = 1; rep <= c.params.warmup && !signal.aborted; rep++)
    await runner.repetition(open, c, rep, true);
  return open;
}

export function describeOutcome(workload: string, outcome: RoundsOutcome, rounds: TargetRounds): string {
  const name = `workload ${workload} on ${rounds.target}`;
  const window = outcome.window ? ` (window: rounds ${outcome.window.first}–${outcome.window.last})` : "";
  switch (outcome.status) {
    case "steady":
      return `${name}: steady state reached in round ${outcome.rounds}${window}`;
    case "not reached":
      return `${name}: steady state not reached in ${rounds.max} rounds${window}`;
    case "incomplete":
      return `${name}: rounds stopped after round ${outcome.rounds}, steady state not judged`;
  }
}
