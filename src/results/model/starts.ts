/**
 * The start instant of every measured repetition, per case: what puts a workload's repetitions on one
 * clock (the time series' `x: elapsed` and `x: written` axes), idle gaps between them included. Folded in
 * with the rows, and passed between threads as one Float64Array of (repetition, epoch ms) pairs per case.
 */
export type StartsPartial = [caseId: string, pairs: Float64Array][];

export class RepetitionStarts {
  private readonly byCase = new Map<string, Map<number, number>>();

  add(caseId: string, repetition: number, start: string | undefined): void {
    if (start !== undefined) this.set(caseId, repetition, Date.parse(start));
  }

  private set(caseId: string, repetition: number, ms: number): void {
    if (!Number.isFinite(ms)) return;
    let reps = this.byCase.get(caseId);
    if (!reps) this.byCase.set(caseId, (reps = new Map()));
    // A repetition run again (--resume) started when its last row says.
    reps.set(repetition, ms);
  }

  partial(): StartsPartial | undefined {
    if (this.byCase.size === 0) return undefined;
    return [...this.byCase].map(([id, reps]) => [id, Float64Array.from([...reps].flat())]);
  }

  /** Adds the starts of rows that follow those folded in so far. */
  merge(partial: StartsPartial): void {
    for (const [id, pairs] of partial)
      for (let i = 0; i + 1 < pairs.length; i += 2) this.set(id, pairs[i]!, pairs[i + 1]!);
  }

  /** Per repetition of the case, its start (epoch ms). */
  of(caseId: string): ReadonlyMap<number, number> | undefined {
    return this.byCase.get(caseId);
  }
}
