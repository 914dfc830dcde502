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
