/**
 * A workload's `rounds` resolved against its cases: the defaults applied (PTS's window 5, excursion 20 %,
 * slope 10 %, at most 25 rounds), the tracked case of each target found, and what cannot go with rounds
 * refused. Each case's `repeat` becomes `max`: a round is one repetition of every case, numbered as the round.
 */
import type { SpecPath } from "../diagnostics/diagnostic.js";
import { sameValue } from "../spec/params.js";
import type { ParamName, Workload } from "../spec/schema.js";
import type { DiagnosticSink } from "../spec/sink.js";
import type { Case, PlannedRounds } from "./types.js";

export const ROUND_DEFAULTS = { window: 5, excursion: 20, slope: 10, max: 25 } as const;

export function planRounds(
  workload: Workload,
  cases: Case[],
  base: SpecPath,
  sink: DiagnosticSink,
): PlannedRounds | undefined {
  const { rounds } = workload;
  if (!rounds) return undefined;
  const path = [...base, "rounds"];
  // The round is the repetition: a repeat of the workload's own would contradict it (the spec's defaults do not apply).
  const included = workload.matrix?.include?.findIndex((entry) => entry.repeat !== undefined) ?? -1;
  const repeatAt: SpecPath | undefined =
    workload.repeat !== undefined
      ? [...base, "repeat"]
      : workload.matrix?.repeat !== undefined
        ? [...base, "matrix", "repeat"]
        : included >= 0
          ? [...base, "matrix", "include", included, "repeat"]
          : undefined;
  if (repeatAt)
    sink.error(
      "conflicting-keys",
      "a workload with rounds runs each case once per round; remove repeat (rounds.max bounds the rounds)",
      repeatAt,
    );
  const grouped = cases.find((c) => c.params.hosts !== undefined);
  if (grouped)
    sink.error(
      "conflicting-keys",
      `rounds run on this machine only; case ${grouped.id} runs on host group "${grouped.params.hosts}"`,
      path,
    );
  const together = cases.find((c) => c.together !== undefined);
  if (together)
    sink.error(
      "conflicting-keys",
      `rounds run each case on one target; case ${together.id} runs on several at once (target: { together })`,
      path,
    );
  const window = rounds.window ?? ROUND_DEFAULTS.window;
  const max = rounds.max ?? ROUND_DEFAULTS.max;
  if (max < window)
    sink.error("out-of-range", `max (${max}) is smaller than the window (${window})`, [...path, "max"]);
  // PTS judges each device on its own: `where` must select one case on every target of the workload.
  const where = rounds.track.where;
  const targets = [...new Set(cases.map((c) => c.target))];
  const tracked: Record<string, string> = {};
  for (const target of targets) {
    const own = cases.filter((c) => c.target === target);
    const selected = own.filter((c) =>
      Object.entries(where).every(([key, value]) => sameValue(c.params[key as ParamName], value)),
    );
    if (selected.length === 1) tracked[target] = selected[0]!.id;
    else
      sink.error(
        "track-not-one-case",
        selected.length === 0
          ? `rounds.track.where selects no case of workload "${workload.name}" on target "${target}" (each target's rounds track one case); its cases there: ${own.map((c) => c.id).join(", ")}`
          : `rounds.track.where selects ${selected.length} cases on target "${target}" (${selected.map((c) => c.id).join(", ")}); give the parameters that tell one apart`,
        [...path, "track", "where"],
      );
  }
  if (Object.keys(tracked).length !== targets.length) return undefined;
  for (const c of cases) c.params.repeat = max;
  return {
    track: { where, metric: rounds.track.metric, cases: tracked },
    window,
    excursion: rounds.excursion ?? ROUND_DEFAULTS.excursion,
    slope: rounds.slope ?? ROUND_DEFAULTS.slope,
    max,
  };
}
