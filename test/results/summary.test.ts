import { describe, expect, it } from "vitest";
import type { ResultRow } from "../../src/results/row.js";
import { evaluateExpectations, summarizeCase } from "../../src/results/summary.js";
import { objectCase, objectRow } from "../support/rows.js";

const theCase = (engine: "s3" | "ipfs") => objectCase("c", engine);

const row = (repetition: number, elu: number, cpuSeconds = 1, seconds = 1): ResultRow =>
  objectRow("c", repetition, {
    seconds,
    throughput: 1e8 * (1 + repetition / 100),
    client: { cpuSeconds, cpuPerGiB: 10, eventLoopUtilization: elu, threads: 1 },
  });

const clientBound = (engine: "s3" | "ipfs", elus: number[], cpuSeconds = 1, seconds = 1) =>
  summarizeCase(
    theCase(engine),
    elus.map((elu, i) => row(i + 1, elu, cpuSeconds, seconds)),
  ).warnings.filter((w) => w.startsWith("client-bound"));

describe("the client-bound warning", () => {
  it("is given when most repetitions' event loop was busy over 90% using the CPU, with the remedy the engine has", () => {
    const [warning] = clientBound("s3", [0.95, 0.97, 0.5]);
    expect(warning).toMatch(
      /in 2 of 3 repetitions .* busy 96% of the time and used 1\.00 CPU-seconds per second/,
    );
    expect(warning).toContain("`threads: N`");
    expect(clientBound("ipfs", [0.95, 0.97, 0.93])[0]).not.toContain("threads");
  });

  it("is not given for one busy repetition (a cold first one) among calm ones", () => {
    expect(clientBound("s3", [0.95, 0.44, 0.3])).toEqual([]);
  });

  it("is not given for a busy-looking event loop that used little CPU: 0.09 CPU-s in 0.6 s", () => {
    expect(clientBound("s3", [0.95, 0.97, 0.96], 0.09, 0.6)).toEqual([]);
  });

  it("is given when the loop was busy and the CPU used most of the repetition: 0.55 CPU-s in 0.6 s", () => {
    expect(clientBound("s3", [0.95, 0.97, 0.96], 0.55, 0.6)).toHaveLength(1);
  });
});

describe("expectations", () => {
  const expectation = {
    index: 0,
    workload: "w",
    metric: "throughput" as const,
    atLeast: 5e7,
    where: {},
    atLeastText: "50MB/s",
    cases: ["ran", "failed", "never"],
  };
  const summary = (id: string, rows: ResultRow[]) =>
    summarizeCase(
      { ...theCase("s3"), id },
      rows.map((r) => ({ ...r, case: id })),
    );

  it("of a case that never ran are not run, not failed; those of a failed case are not met", () => {
    const cases = [
      summary("ran", [row(1, 0.1), row(2, 0.1)]),
      summary("failed", [{ ...row(1, 0.1), ok: false, error: "boom" }]),
      summary("never", []),
    ];
    expect(evaluateExpectations([expectation], cases).map((e) => [e.case, e.status, e.pass])).toEqual([
      ["ran", "met", true],
      ["failed", "not met", false],
      ["never", "not run", false],
    ]);
    // A case absent from the summaries (an interrupted run's report) is not run either.
    expect(evaluateExpectations([expectation], cases.slice(0, 1)).map((e) => e.status)).toEqual([
      "met",
      "not run",
      "not run",
    ]);
  });
});
