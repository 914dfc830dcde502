import { describe, expect, it } from "vitest";
import { describeVerdict } from "../../src/cli/run.js";
import type { Plan } from "../../src/plan/types.js";
import { buildSummary } from "../../src/results/summary.js";
import { objectCase, objectRow } from "../support/rows.js";

/** An interrupted run: case "ran" measured, the two others never reached. */
const interrupted = (atLeast: number) =>
  buildSummary(
    {
      cases: ["ran", "later", "last"].map((id) => objectCase(id)),
      expect: [
        {
          index: 0,
          workload: "w",
          where: {},
          metric: "throughput",
          atLeast,
          cases: ["ran", "later", "last"],
        },
      ],
      report: {},
      workloads: { w: {} },
    } as unknown as Plan,
    [objectRow("ran", 1, { throughput: 101e6 }), objectRow("ran", 2, { throughput: 102e6 })],
  );

describe("the console verdict", () => {
  it("counts the expectations of cases that never ran as not run, not as unmet", () => {
    const summary = interrupted(55e6);
    expect(summary.expect.map((e) => e.status)).toEqual(["met", "not run", "not run"]);
    expect([summary.failedExpectations, summary.unrunExpectations]).toEqual([0, 2]);
    const verdict = describeVerdict(summary);
    expect(verdict.lines).toEqual(["expectations: 1 of 3 met, 2 not run"]);
    // Not checked is not passed.
    expect(verdict.ok).toBe(false);
  });

  it("prints an unmet expectation's numbers as the report does", () => {
    expect(describeVerdict(interrupted(550e6)).lines).toEqual([
      "expectation not met: expect[0] ran throughput 101.5 MB/s (expected ≥ 550.0 MB/s)",
      "expectations: 0 of 3 met, 2 not run",
    ]);
  });
});
