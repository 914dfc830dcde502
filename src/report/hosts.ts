/** What the report says each figure of a case run on several hosts (or targets) is. */
import type { PartAxis } from "../results/model/hosts.js";

/** What each figure of a case run on several hosts (or targets) is: the table's tooltips, the chart's captions. */
export function partFigures(by: PartAxis) {
  return {
    merged: `the ${by}s' summed bytes ÷ the common window`,
    window: `from the earliest ${by}'s start to the latest ${by}'s end`,
    host: `this ${by}'s own bytes ÷ its own seconds`,
    ofFastest: `this ${by}'s median throughput ÷ that of the fastest ${by} of the case`,
    latency: `all ${by}s: of every ${by}'s operations pooled (their merged histograms); a ${by}: of its own operations`,
    spread: `the latest ${by}'s start − the earliest ${by}'s start`,
    offset: `this ${by}'s start − the earliest ${by}'s start`,
  } as const;
}
