import { describe, expect, it } from "vitest";
import type { ResultRow } from "../../src/rows/row.js";
import { evaluateExpectations, summarizeCase, type CaseSummary } from "../../src/results/summary.js";
import type { TelemetrySummary } from "../../src/rows/telemetry.js";
import { objectCase, objectRow } from "../support/rows.js";

const theCase = (engine: "s3" | "ipfs") => objectCase("c", engine);

const level = (value: number) => ({ mean: value, peak: value });
const telemetry = (
  overrides: { thread?: number; cores?: number; util?: number; tx?: number } = {},
): TelemetrySummary => ({
  seconds: 1,
  cpu: { busy: level(overrides.cores ?? 0.3), iowait: level(0) },
  net: { lo: { rx: level(1e6), tx: level(1e6) }, veth0: { rx: level(0), tx: level(overrides.tx ?? 1e6) } },
  disk: { loop3: { util: level(overrides.util ?? 0.1), throughput: level(1e6), iops: level(100) } },
  procs: {
    benchspec: { cpu: level(0.4), busiestThread: level(overrides.thread ?? 0.3), rss: level(1e8) },
  },
});

const row = (repetition: number, t?: TelemetrySummary): ResultRow =>
  objectRow("c", repetition, {
    throughput: 1e8 * (1 + repetition / 100),
    // An event loop that reads busy says nothing on its own: the verdict is the host's telemetry's.
    client: { cpuSeconds: 0.09, cpuPerGiB: 10, eventLoopUtilization: 0.97, threads: 1 },
    ...(t && { telemetry: t }),
  });

const warningsOf = (summary: CaseSummary) => summary.warnings.filter((w) => w.startsWith("client-bound"));

describe("the client-bound verdict, from the host's telemetry", () => {
  it("names benchspec's saturated thread, with the remedy the engine has", () => {
    const rows = [1, 2, 3].map((i) => row(i, telemetry({ thread: 0.96 })));
    const [warning] = warningsOf(summarizeCase(objectCase("c", "s3"), rows));
    expect(warning).toBe(
      "client-bound: client CPU: a thread of benchspec ran 96 % of the time (one core is its limit), so these numbers may measure the client, not the storage; more client threads may help (`threads: N`)",
    );
    expect(warningsOf(summarizeCase(objectCase("c", "ipfs"), rows))[0]).not.toContain("threads");
  });

  it("is not given for a busy-looking event loop whose host had room (0.09 CPU-s in 0.6 s)", () => {
    const summary = summarizeCase(
      objectCase("c", "s3"),
      [1, 2].map((i) => row(i, telemetry())),
    );
    expect(warningsOf(summary)).toEqual([]);
    expect(summary.telemetry).toEqual([{ summary: expect.objectContaining({ seconds: 2 }), saturated: [] }]);
  });

  it("weighs the repetitions by their time: one busy second among three calm ones is no verdict", () => {
    const rows = [row(1, telemetry({ thread: 1 })), ...[2, 3, 4].map((i) => row(i, telemetry()))];
    expect(warningsOf(summarizeCase(objectCase("c", "s3"), rows))).toEqual([]);
  });

  it("gives no verdict without telemetry (rows of a compiled script)", () => {
    const summary = summarizeCase(objectCase("c", "s3"), [row(1), row(2)]);
    expect(warningsOf(summary)).toEqual([]);
    expect(summary.telemetry).toBeUndefined();
  });

  it("says a saturated device without calling the client the limit", () => {
    const summary = summarizeCase(objectCase("c", "s3"), [row(1, telemetry({ util: 0.98 }))]);
    expect(warningsOf(summary)).toEqual([]);
    expect(summary.telemetry![0]!.saturated).toEqual(["device: loop3 had I/O in flight 98 % of the time"]);
  });

  it("compares an interface with its declared capacity", () => {
    const nic = { interface: "veth0", throughput: 25e6, label: "200 Mbit/s link" };
    const summary = summarizeCase(objectCase("c", "s3"), [row(1, telemetry({ tx: 24e6 }))], [nic]);
    expect(warningsOf(summary)).toEqual([
      "client-bound: network: veth0 sent 192 Mbit/s, 96 % of 200 Mbit/s link (200 Mbit/s), so these numbers may measure the client, not the storage",
    ]);
  });

  it("in a row of several hosts, judges each host and names the one that was the limit", () => {
    const base = row(1);
    const part = (host: string, t: TelemetrySummary) => ({
      host,
      ok: true,
      start: base.start,
      end: base.end,
      bytes: 1,
      ops: 1,
      seconds: 1,
      throughput: 1,
      iops: 1,
      telemetry: t,
    });
    const merged = { ...base, hosts: [part("h1", telemetry()), part("h2", telemetry({ cores: 0.95 }))] };
    const summary = summarizeCase(objectCase("c", "s3"), [merged]);
    expect(warningsOf(summary)).toEqual([
      "client-bound on h2: client CPU: all cores 95 % busy, so these numbers may measure the client, not the storage",
    ]);
    expect(summary.telemetry!.map((t) => t.host)).toEqual(["h1", "h2"]);
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
      summary("ran", [row(1), row(2)]),
      summary("failed", [{ ...row(1), ok: false, error: "boom" }]),
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
