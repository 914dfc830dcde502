/** When a report draws its runs over time, and the trend of those runs (results/trend.ts) from their data. */
import type { CompareOptions } from "../results/compare.js";
import { trendOf, type Trend } from "../results/trend.js";
import type { RunData } from "./model.js";

/** From this many runs of one spec, a report draws them over time (fewer: side by side). */
export const TREND_MIN_RUNS = 3;

/** The trend of the runs, when they are TREND_MIN_RUNS or more of one spec; else undefined. */
export function trendOfRuns(
  runs: readonly RunData[],
  rule: Pick<CompareOptions, "threshold" | "alpha" | "metrics">,
): Trend | undefined {
  const specs = new Set(runs.map((run) => run.plan.name));
  if (runs.length < TREND_MIN_RUNS || specs.size !== 1) return undefined;
  return trendOf(
    [...specs][0]!,
    runs.map((run) => {
      const start = run.provenance?.start ?? run.state?.start;
      const git = run.provenance?.spec.git;
      return {
        label: run.label,
        ...(start && { start }),
        ...(git && { git: { commit: git.commit, dirty: git.dirty } }),
        cases: run.cases,
      };
    }),
    rule,
  );
}

/** The run a trend's page shows in full: the latest by start. */
export const latestRun = (runs: readonly RunData[], trend: Trend): RunData =>
  runs.find((run) => run.label === trend.runs.at(-1)!.label)!;
