/**
 * One line of the bench table: a metric measured for benchspec and (where there is one) for the reference
 * it is compared with, their ratio, the target and the verdict.
 */
/** BELOW and ABOVE: the figure misses its target (ABOVE only where a figure too high is as wrong, `within`). */
export type Verdict = "PASS" | "BELOW" | "ABOVE" | "INFO" | "FAILED";

export interface BenchLine {
  section: string;
  metric: string;
  unit: string;
  /** benchspec's figure (median over rounds). */
  engine?: number;
  /** The reference's figure: s5cmd, the ipfs CLI, fio/dd run by hand. */
  reference?: number;
  /** engine / reference where that comparison is the point. */
  ratio?: number;
  /** The target in words, e.g. "ratio ≥ 1.0". */
  target: string;
  verdict: Verdict;
  /** Every round's figures and anything else worth keeping in latest.json. */
  detail?: Record<string, unknown>;
  note?: string;
}

export type Direction = "higher" | "lower";

/**
 * A ratio line: higher-is-better metrics pass at ratio ≥ min, lower-is-better ones at ratio ≤ max (a miss
 * either way is BELOW the target), and figures that must agree with their reference (measurements of the
 * same thing) within [min, max], BELOW or ABOVE it.
 */
export function ratioLine(
  base: Omit<BenchLine, "ratio" | "verdict" | "target">,
  bound: { atLeast: number } | { atMost: number } | { within: readonly [number, number] },
): BenchLine {
  const ratio = base.engine !== undefined && base.reference ? base.engine / base.reference : undefined;
  let target: string;
  let verdict: Verdict = "PASS";
  if ("within" in bound) {
    const [min, max] = bound.within;
    target = `ratio ${min.toFixed(1)}–${max.toFixed(1)}`;
    if (ratio !== undefined && ratio < min) verdict = "BELOW";
    if (ratio !== undefined && ratio > max) verdict = "ABOVE";
  } else if ("atLeast" in bound) {
    target = `ratio ≥ ${bound.atLeast.toFixed(1)}`;
    if (ratio !== undefined && ratio < bound.atLeast) verdict = "BELOW";
  } else {
    target = `ratio ≤ ${bound.atMost.toFixed(1)}`;
    if (ratio !== undefined && ratio > bound.atMost) verdict = "BELOW";
  }
  return { ...base, ratio, target, verdict: ratio === undefined ? "FAILED" : verdict };
}

export function failedLine(section: string, metric: string, error: unknown): BenchLine {
  return {
    section,
    metric,
    unit: "",
    target: "",
    verdict: "FAILED",
    note: (error instanceof Error ? error.message : String(error)).split("\n")[0]!.slice(0, 160),
  };
}
