/**
 * SNIA PTS steady state over rounds, as pure functions (docs/language.md, "Rounds"). The tracked value of
 * each round is y; over the last `window` rounds (x = the round numbers):
 *   data excursion:  max(y) − min(y)                     ≤ excursion % × average(y)
 *   slope excursion: |least-squares slope| × (window − 1) ≤ slope % × average(y)
 * (the second is the PTS reading: the fitted line's max − min over the window). The first round where both
 * hold ends the rounds; otherwise they end at `max` with steady state not reached.
 */
import { maxOf, minOf } from "../rows/stats.js";

export interface RoundCriteria {
  window: number;
  /** Percentages (0–100) of the window's average. */
  excursion: number;
  slope: number;
  max: number;
}

/** The measurement window: its rounds, values and the figures the criteria compare. */
export interface RoundWindow {
  /** First and last round of the window (1-based, inclusive). */
  first: number;
  last: number;
  values: number[];
  average: number;
  /** max − min of the values, and what the criterion allows (excursion % × average). */
  range: number;
  rangeAllowed: number;
  /** The least-squares line y = slope × round + intercept over the window. */
  slope: number;
  intercept: number;
  /** |slope| × (window − 1), and what the criterion allows (slope % × average). */
  slopeExcursion: number;
  slopeAllowed: number;
  steady: boolean;
}

/** incomplete: fewer than `max` rounds and no steady window yet (still running, or the run stopped). */
export type RoundStatus = "steady" | "not reached" | "incomplete";

export interface RoundsOutcome {
  status: RoundStatus;
  /** Rounds with a tracked value, from round 1 without a gap. */
  rounds: number;
  /** The window steady state was found in, or the last `window` rounds; absent before `window` rounds. */
  window?: RoundWindow;
}

/** The criteria over `values` taken as rounds first…first+n−1. */
export function checkWindow(values: readonly number[], first: number, criteria: RoundCriteria): RoundWindow {
  const n = values.length;
  const xs = values.map((_, i) => first + i);
  const average = mean(values);
  const xMean = mean(xs);
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i]! - xMean) * (values[i]! - average);
    sxx += (xs[i]! - xMean) ** 2;
  }
  const slope = sxx === 0 ? 0 : sxy / sxx;
  const range = maxOf(values) - minOf(values);
  const slopeExcursion = Math.abs(slope) * (n - 1);
  const rangeAllowed = (criteria.excursion / 100) * Math.abs(average);
  const slopeAllowed = (criteria.slope / 100) * Math.abs(average);
  return {
    first,
    last: first + n - 1,
    values: [...values],
    average,
    range,
    rangeAllowed,
    slope,
    intercept: average - slope * xMean,
    slopeExcursion,
    slopeAllowed,
    steady: range <= rangeAllowed && slopeExcursion <= slopeAllowed,
  };
}

/**
 * Where rounds stand after `values` (the tracked value of rounds 1, 2, …): steady at the first round whose
 * window meets both criteria (later values are ignored: the rounds stopped there), not reached after `max`
 * rounds, else incomplete.
 */
export function roundsOutcome(values: readonly number[], criteria: RoundCriteria): RoundsOutcome {
  const { window: size, max } = criteria;
  const upTo = Math.min(values.length, max);
  let last: RoundWindow | undefined;
  for (let n = size; n <= upTo; n++) {
    last = checkWindow(values.slice(n - size, n), n - size + 1, criteria);
    if (last.steady) return { status: "steady", rounds: n, window: last };
  }
  return { status: upTo >= max ? "not reached" : "incomplete", rounds: upTo, ...(last && { window: last }) };
}

const mean = (values: readonly number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;
