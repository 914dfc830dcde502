import { describe, expect, it } from "vitest";
import { summarizeAllRounds } from "../../src/results/rounds-summary.js";
import { checkWindow, roundsOutcome } from "../../src/results/steady-rounds.js";

const PTS = { window: 5, excursion: 20, slope: 10, max: 25 };

describe("PTS steady state over rounds", () => {
  it("stops at the first round where both criteria hold, and not before", () => {
    // Settling from 2000 towards 1000: the spread of each window shrinks round by round.
    const values = Array.from({ length: 25 }, (_, i) => 1000 + 1000 * 0.6 ** i);
    const outcome = roundsOutcome(values, PTS);
    expect(outcome.status).toBe("steady");
    // The first round whose last-5 window holds both criteria, found independently.
    const first = Array.from({ length: 21 }, (_, i) => i + 5).find((n) => {
      const w = values.slice(n - 5, n);
      const avg = w.reduce((a, b) => a + b) / 5;
      const slope = (2 * (w[4]! - w[0]!) + (w[3]! - w[1]!)) / 10; // least squares over x = 1…5
      return Math.max(...w) - Math.min(...w) <= 0.2 * avg && Math.abs(slope) * 4 <= 0.1 * avg;
    })!;
    expect(outcome.rounds).toBe(first);
    expect(first).toBeGreaterThan(5);
    // Every earlier round's window failed a criterion.
    for (let n = 5; n < first; n++) expect(roundsOutcome(values.slice(0, n), PTS).status).toBe("incomplete");
    expect(outcome.window).toMatchObject({ first: first - 4, last: first, steady: true });
    // Rounds after the steady one do not move it.
    expect(roundsOutcome(values.slice(0, first), PTS)).toEqual(outcome);
  });

  it("is never steady when the values oscillate beyond the excursion, and stops at max", () => {
    const values = Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? 1150 : 850)); // range 300 > 20 % of 1000
    const outcome = roundsOutcome(values, PTS);
    expect(outcome).toMatchObject({ status: "not reached", rounds: 25 });
    expect(outcome.window).toMatchObject({ first: 21, last: 25, steady: false });
    expect(outcome.window!.range).toBeGreaterThan(outcome.window!.rangeAllowed);
    expect(roundsOutcome(values.slice(0, 24), PTS).status).toBe("incomplete");
  });

  it("is not steady when the values drift within the excursion band but with a slope above the limit", () => {
    // +40 per round: each window's range (160) is within 20 % of its average (1080…1280), its fitted rise
    // (160) is not within 10 %.
    const criteria = { ...PTS, max: 10 };
    const values = Array.from({ length: 10 }, (_, i) => 1000 + 40 * i);
    const outcome = roundsOutcome(values, criteria);
    expect(outcome).toMatchObject({ status: "not reached", rounds: 10 });
    for (let n = 5; n <= 10; n++) {
      const window = checkWindow(values.slice(n - 5, n), n - 4, criteria);
      expect(window.range).toBeLessThanOrEqual(window.rangeAllowed);
      expect(window.slopeExcursion).toBeGreaterThan(window.slopeAllowed);
      expect(window.slope).toBeCloseTo(40, 9);
    }
  });

  it("fits the least-squares line over the window's round numbers", () => {
    const window = checkWindow([10, 12, 11, 13, 14], 3, PTS);
    expect(window).toMatchObject({ first: 3, last: 7, average: 12, range: 4 });
    expect(window.slope).toBeCloseTo(0.9, 9);
    // The line passes through (mean round, average).
    expect(window.slope * 5 + window.intercept).toBeCloseTo(12, 9);
    expect(window.slopeExcursion).toBeCloseTo(3.6, 9);
  });

  it("holds a flat window at the boundaries (≤, not <)", () => {
    const values = [900, 1100, 1000, 1000, 1000]; // range exactly 20 % of the average 1000
    const window = checkWindow(values, 1, { ...PTS, slope: 100 });
    expect(window.range).toBe(200);
    expect(window.rangeAllowed).toBe(200);
    expect(window.steady).toBe(true);
  });
});

describe("rounds summary per target", () => {
  it("judges each target's tracked case on its own rows", () => {
    const criteria = { window: 2, excursion: 10, slope: 10, max: 4 };
    const plan = {
      workloads: {
        w: {
          rounds: {
            track: { where: {}, metric: "iops" as const, cases: { a: "w.a", b: "w.b" } },
            ...criteria,
          },
        },
        other: {},
      },
    };
    // a settles in round 2; b keeps moving and is not steady in 4 rounds.
    const series = { a: [100, 101, 100, 101], b: [100, 200, 100, 200] };
    const rows = Object.entries(series).flatMap(([target, values]) =>
      values.map((iops, i) => ({
        workload: "w",
        case: `w.${target}`,
        target,
        repetition: i + 1,
        warmup: false,
        ok: true,
        iops,
        throughput: iops * 4096,
        seconds: 1,
      })),
    );
    const summary = summarizeAllRounds(plan, rows);
    expect(Object.keys(summary)).toEqual(["w"]);
    expect(Object.keys(summary.w!)).toEqual(["a", "b"]);
    expect(summary.w!.a).toMatchObject({
      target: "a",
      track: { case: "w.a" },
      status: "steady",
      rounds: 2,
      window: { first: 1, last: 2 },
    });
    // The rounds past a's steady one are not its values.
    expect(summary.w!.a!.values.map((v) => v.round)).toEqual([1, 2]);
    expect(summary.w!.b).toMatchObject({
      target: "b",
      status: "not reached",
      rounds: 4,
      window: { first: 3, last: 4 },
    });
    expect(summary.w!.b!.values.every((v) => v.case === "w.b")).toBe(true);
  });
});
