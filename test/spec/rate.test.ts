/** `rate` and `arrivals`: an open loop's schedule in the language, its errors, and the call sequence it compiles to. */
import { describe, expect, it } from "vitest";
import { compilePlan } from "../../src/compile/compile.js";
import { VERSION } from "../../src/cli/context.js";
import { diagnosticsOf, planOf } from "../support/spec.js";

const s3Spec = (workload: object) => ({
  benchspec: 1,
  name: "open",
  targets: { store: { kind: "s3", launch: "minio" } },
  workloads: [{ name: "w", op: "put", size: "1MiB", objects: 4, ...workload }],
});

const messages = (spec: object) =>
  diagnosticsOf(spec).map((d) => `${d.code} ${d.path?.join(".")}: ${d.message}`);

describe("rate", () => {
  it("reads operations per second (a number or N/s) and bytes per second; a list sweeps it, named in the case ids", () => {
    const plan = planOf(s3Spec({ rate: [200, "50/s", "100MiB/s"], arrivals: "poisson" }));
    expect(plan.cases.map((c) => c.id)).toEqual([
      "w.store.put.rate-200_s",
      "w.store.put.rate-50_s",
      "w.store.put.rate-100MiB_s",
    ]);
    expect(plan.cases.map((c) => c.params.rate)).toEqual([
      { opsPerSecond: 200 },
      { opsPerSecond: 50 },
      { bytesPerSecond: 100 * 2 ** 20 },
    ]);
  });

  it("compiles into the call sequence's measured group: ops per second (bytes ÷ the object size), arrivals, seed", async () => {
    const plan = planOf(s3Spec({ rate: ["100MiB/s", 25], arrivals: "poisson" }));
    const { artifacts } = await compilePlan(plan, ["sdk"], VERSION);
    const rates = artifacts
      .filter((a) => a.path.startsWith("sdk/"))
      .map(
        (a) =>
          (JSON.parse(a.content) as { repetitions: { measured: { rate: unknown } }[] }).repetitions[0]!
            .measured.rate,
      );
    expect(rates).toEqual([
      { opsPerSecond: 100, arrivals: "poisson", seed: "w.store.put.rate-100MiB_s" },
      { opsPerSecond: 25, arrivals: "poisson", seed: "w.store.put.rate-25_s" },
    ]);
  });

  it("refuses what is not a rate, a rate of 0, arrivals alone, rate with autotune and rate on an engine without it", () => {
    expect(messages(s3Spec({ rate: "fast" }))).toEqual([
      expect.stringMatching(/^invalid-unit workloads\.0\.rate: .*fast/),
    ]);
    expect(messages(s3Spec({ rate: 0 }))).toEqual([
      expect.stringMatching(/^out-of-range workloads\.0\.rate: rate must be above 0/),
    ]);
    expect(messages(s3Spec({ arrivals: "poisson" }))).toEqual([
      expect.stringMatching(
        /^param-not-applicable workloads\.0\.arrivals: "arrivals" spaces .* set "rate" too/,
      ),
    ]);
    expect(
      messages(
        s3Spec({
          rate: 100,
          autotune: { param: "concurrency", start: 1, factor: 2, max: 8, stopWhenGainBelow: 5 },
        }),
      ),
    ).toEqual([
      expect.stringMatching(
        /^conflicting-keys workloads\.0\.rate: "rate" and an autotune of concurrency exclude each other/,
      ),
    ]);
    const dd = {
      benchspec: 1,
      name: "dd",
      targets: { d: { kind: "fs", path: "/tmp" } },
      workloads: [{ name: "f", engine: "dd", op: "write", rate: 100 }],
    };
    expect(messages(dd)).toEqual([expect.stringMatching(/^param-not-applicable workloads\.0\.rate:/)]);
  });

  it("fio's rate on host groups: each fio server's jobfile its share; the script's copies said to run the whole rate", async () => {
    const plan = planOf({
      benchspec: 1,
      name: "paced",
      targets: { d: { kind: "fs", path: "/tmp" } },
      hosts: {
        servers: { transport: "fio", hosts: ["10.0.0.1", "10.0.0.2", "10.0.0.3"] },
        clients: { transport: "ssh", hosts: ["a", "b"] },
      },
      workloads: [
        { name: "f", engine: "fio", op: "randread", rate: 300, jobs: 2, duration: "2s", hosts: "servers" },
        { name: "s", engine: "fio", op: "randread", rate: 300, duration: "2s", hosts: "clients" },
      ],
    });
    const { artifacts, leftOut } = await compilePlan(plan, ["shell", "fio-client"], VERSION);
    // 300/s over 3 servers of 2 jobs: 50 per job on each.
    const h1 = artifacts.find((a) => a.path === "fio-client/servers/f.d.randread/h1.run.fio")!;
    expect(h1.content).toMatch(/^rate_iops=50$/m);
    expect(leftOut).toEqual([
      expect.stringMatching(
        /^workload "s" in benchspec\.sh: its rate 300\/s is the group's .* copies on the hosts of group "clients" each run the whole rate/,
      ),
    ]);
  });
});

describe("what compile says of an open loop and drawn sizes", () => {
  it("the script runs a closed loop for s3 and ipfs, cannot draw sizes, and skips the bound search: each said", async () => {
    const plan = planOf({
      benchspec: 1,
      name: "gaps",
      targets: { store: { kind: "s3", launch: "minio" }, node: { kind: "ipfs", launch: "kubo" } },
      workloads: [
        { name: "rated", target: "store", op: "put", size: "4KiB", objects: 4, rate: 200, concurrency: 4 },
        { name: "drawn", target: "node", op: "put", size: { "4KiB": "70%", "1MiB": "30%" }, objects: 4 },
        {
          name: "knee",
          target: "store",
          op: "put",
          size: "4KiB",
          objects: 4,
          concurrency: 2,
          autotune: {
            param: "rate",
            start: 100,
            factor: 2,
            max: 800,
            bound: { metric: "p99", atMost: "20ms" },
          },
        },
      ],
    });
    const { leftOut } = await compilePlan(plan, ["shell"], VERSION);
    const said = leftOut.join("\n");
    expect(said).toMatch(
      /workload "rated" in benchspec\.sh: its open loop at rate 200\/s is not run: .*closed loop of concurrency 4\), so its latencies are service times/,
    );
    expect(said).toMatch(
      /workload "drawn" in benchspec\.sh: its object sizes drawn from a distribution are not run/,
    );
    expect(said).toMatch(
      /workload "knee" in benchspec\.sh: its search for the highest rate that keeps p99 ≤ 20ms is not run: the script measures a closed loop of concurrency 2/,
    );
  });

  it("fio draws the sizes itself: uniform as bsrange, lognormal as the bssplit of its power-of-two classes", async () => {
    const plan = planOf({
      benchspec: 1,
      name: "fiosizes",
      targets: { d: { kind: "fs", path: "/tmp/benchspec-fiosizes" } },
      workloads: [
        { name: "u", engine: "fio", op: "randread", size: "8MiB", bs: { uniform: ["4KiB", "64KiB"] } },
        {
          name: "l",
          engine: "fio",
          op: "randread",
          size: "8MiB",
          bs: { lognormal: { median: "12KiB", spread: 2, min: "4KiB", max: "256KiB" } },
        },
      ],
    });
    const { artifacts, leftOut } = await compilePlan(plan, ["fio"], VERSION);
    expect(leftOut).toEqual([]);
    const jobfile = (name: string) => artifacts.find((a) => a.path === `fio/${name}.fio`)!.content;
    expect(jobfile("u")).toMatch(/^bsrange=4096-65536$/m);
    const split = /^bssplit=(.*)$/m
      .exec(jobfile("l"))![1]!
      .split(":")
      .map((s) => s.split("/").map(Number));
    // Power-of-two classes within the clip, whole percentages summing to 100, the median's class the largest.
    for (const [size] of split) expect(Math.log2(size!) % 1).toBe(0);
    expect(split.every(([size]) => size! >= 4096 && size! <= 256 * 1024)).toBe(true);
    expect(split.reduce((total, [, share]) => total + share!, 0)).toBe(100);
    const largest = split.reduce((a, b) => (b[1]! > a[1]! ? b : a));
    expect(largest[0]).toBe(16 * 1024);
  });
});
