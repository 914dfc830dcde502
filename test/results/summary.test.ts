import { describe, expect, it } from "vitest";
import type { Case } from "../../src/plan/types.js";
import type { ResultRow } from "../../src/results/row.js";
import { summarizeCase } from "../../src/results/summary.js";

const theCase = (engine: "s3" | "ipfs"): Case => ({
  id: "c",
  index: 0,
  workload: "w",
  target: "t",
  targetKind: engine,
  engine,
  op: "get",
  params: { target: "t", engine, op: "get", repeat: 3, warmup: 0 },
  sources: {},
  dims: [],
});

const row = (repetition: number, elu: number): ResultRow => ({
  v: 1,
  source: "run",
  spec: "s",
  specHash: "h",
  case: "c",
  workload: "w",
  target: "t",
  engine: "s3",
  op: "get",
  params: {},
  repetition,
  warmup: false,
  ok: true,
  start: "2026-01-01T00:00:00.000Z",
  end: "2026-01-01T00:00:01.000Z",
  bytes: 1e8,
  ops: 10,
  seconds: 1,
  throughput: 1e8 * (1 + repetition / 100),
  iops: 10,
  client: { cpuSeconds: 1, cpuPerGiB: 10, eventLoopUtilization: elu, threads: 1 },
});

const clientBound = (engine: "s3" | "ipfs", elus: number[]) =>
  summarizeCase(
    theCase(engine),
    elus.map((elu, i) => row(i + 1, elu)),
  ).warnings.filter((w) => w.startsWith("client-bound"));

describe("the client-bound warning", () => {
  it("is given when the median repetition's event loop was busy over 90%, with the remedy the engine has", () => {
    const [warning] = clientBound("s3", [0.95, 0.97, 0.5]);
    expect(warning).toMatch(/busy 95% of the time/);
    expect(warning).toContain("`threads: N`");
    expect(clientBound("ipfs", [0.95, 0.97, 0.93])[0]).not.toContain("threads");
  });

  it("is not given for one busy repetition (a cold first one) among calm ones", () => {
    expect(clientBound("s3", [0.95, 0.44, 0.3])).toEqual([]);
  });
});
