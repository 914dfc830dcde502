/**
 * One line of the bench table: a metric measured for benchspec and (where there is one) for the reference
 * it is compared with, their ratio, the target and the verdict.
 */
export type Verdict = "PASS" | "BELOW" | "INFO" | "FAILED";

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

/** A ratio line: higher-is-better metrics pass at ratio ≥ min, lower-is-better ones at ratio ≤ max. */
export function ratioLine(
  base: Omit<BenchLine, "ratio" | "verdict" | "target">,
  bound: { atLeast: number } | { atMost: number },
): BenchLine {
  const ratio = base.engine !== undefined && base.reference ? base.engine / base.reference : undefined;
  const pass = ratio !== undefined && ("atLeast" in bound ? ratio >= bound.atLeast : ratio <= bound.atMost);
  const target =
    "atLeast" in bound ? `ratio ≥ ${bound.atLeast.toFixed(1)}` : `ratio ≤ ${bound.atMost.toFixed(1)}`;
  return { ...base, ratio, target, verdict: ratio === undefined ? "FAILED" : pass ? "PASS" : "BELOW" };
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
