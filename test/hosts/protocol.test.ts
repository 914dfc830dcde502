/**
 * The worker protocol carries the plan's cases and targets and the engines' measurements, and each end parses
 * them with the real schemas: what is sent is what arrives, for every case of every spec in specs/ and for
 * specs that use every parameter's normalized form; what the schemas refuse is not taken as a message.
 */
import { describe, expect, it } from "vitest";
import { measure } from "../../src/engines/load/measure.js";
import {
  decodeToWorker,
  encodeFromWorker,
  encodeMessage,
  FromWorkerLines,
  type ToWorker,
} from "../../src/hosts/protocol.js";
import { loadSpec } from "../../src/engines/language.js";
import type { Case, Plan } from "../../src/plan/types.js";
import type { Measurement } from "../../src/rows/row.js";
import { planOf, specFiles } from "../support/spec.js";

const prepares = (plan: Plan): ToWorker[] =>
  plan.cases
    .filter((c) => c.together === undefined)
    .map((c) => ({ t: "prepare", to: 0, case: c, target: plan.targets[c.target]!, writes: true }));

const roundTrip = (message: ToWorker) => decodeToWorker(encodeMessage(message).trimEnd());

/** A spec whose cases use the parameters whose normalized form differs most from what is written. */
const richSpec = {
  benchspec: 1,
  name: "rich",
  targets: {
    disk: { kind: "fs", path: "/tmp/x", vars: { capacityGiB: 8 } },
    store: { kind: "s3", endpoint: "http://127.0.0.1:9000", bucket: "bench", region: "us-east-1" },
  },
  vars: { capacityGiB: 1 },
  workloads: [
    {
      name: "f",
      target: "disk",
      op: ["randread", "randrw"],
      bs: ["4KiB", "1MiB"],
      size: "64MiB",
      duration: "2s",
      ramp: "500ms",
      read: "70%",
      direct: true,
      sample: "250ms",
      idle: "1s",
      ioengine: "psync",
      data: { compressible: "50%" },
      precondition: { write: "random", passes: 1, bs: "1MiB" },
      steady: { metric: "iops", window: "1s", slope: "10%" },
    },
    {
      name: "o",
      target: "store",
      op: "mixed",
      size: "6MiB",
      objects: 4,
      concurrency: 2,
      threads: "auto",
      mix: { get: 60, put: 40 },
      multipart: { partSize: "5MiB", queue: 2 },
    },
    {
      name: "t",
      target: "store",
      op: "put",
      size: "1MiB",
      duration: "1s",
      autotune: { param: "concurrency", start: 1, factor: 2, max: 8, stopWhenGainBelow: "5%" },
    },
  ],
};

describe("the worker protocol's plan messages", () => {
  it("carry every case of every spec in specs/ and its target unchanged", async () => {
    let checked = 0;
    for (const file of specFiles()) {
      const { plan } = await loadSpec(file);
      for (const message of prepares(plan!)) {
        expect(roundTrip(message), `${file}: ${(message as { case: { id: string } }).case.id}`).toEqual(
          message,
        );
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(20);
  });

  it("carry cases whose parameters are units, percentages, mixes and nested settings unchanged", () => {
    const plan = planOf(richSpec);
    expect(plan.cases.length).toBeGreaterThan(4);
    for (const message of prepares(plan)) expect(roundTrip(message)).toEqual(message);
  });

  it("are not taken when the case or target is not one the schemas allow", () => {
    const [message] = prepares(planOf(richSpec));
    const wire = JSON.parse(encodeMessage(message!)) as { case: Case; target: { path: string } };
    const altered = (change: (copy: typeof wire) => void) => {
      const copy = structuredClone(wire);
      change(copy);
      return decodeToWorker(JSON.stringify(copy));
    };
    expect(altered(() => {})).toEqual(message);
    expect(altered((m) => (m.target.path = "a\nb"))).toBeUndefined();
    expect(altered((m) => (m.case.params.size = 67108864))).toBeUndefined();
    expect(altered((m) => Object.assign(m.case, { shell: "rm -rf /" }))).toBeUndefined();
    expect(() =>
      encodeMessage({ ...message!, target: { ...wire.target, path: "a\nb" } } as ToWorker),
    ).toThrow();
  });

  it("send artifacts only with paths inside the worker's directory", () => {
    const hello = (path: string) => ({
      t: "hello" as const,
      to: 0,
      protocol: 4,
      runId: "r",
      spec: "s",
      env: {},
      engines: ["fio"],
      hosts: 3,
      artifacts: [{ path, content: "x" }],
    });
    expect(roundTrip(hello("fio/w.fio"))).toEqual(hello("fio/w.fio"));
    for (const path of ["../w.fio", "/etc/passwd", "fio/../../w", ".."]) {
      expect(decodeToWorker(JSON.stringify(hello(path))), path).toBeUndefined();
      expect(() => encodeMessage(hello(path)), path).toThrow();
    }
  });
});

describe("the worker protocol's results", () => {
  it("carry a measurement whole, pieces and all, and refuse one that is not a measurement", () => {
    const measured = measure({
      records: Array.from({ length: 200 }, (_, i) => ({
        worker: i % 4,
        start: i * 3,
        end: i * 3 + 2.5,
        bytes: 1 << 20,
        ...(i % 50 === 7 && { error: "SlowDown" }),
      })),
      startedAt: 0,
      epochStart: Date.UTC(2026, 0, 1),
      cpuSeconds: 0.2,
      elu: 0.3,
      threads: 2,
    });
    const measurement: Measurement = {
      ...measured,
      errorCode: "target-unresponsive",
      timeseries: [{ t: 0.25, throughput: 4e8, iops: 400 }],
      samples: [
        {
          t: Date.UTC(2026, 0, 1),
          seconds: 1,
          host: "h1",
          cpu: { user: 0.2, system: 0.1, iowait: 0 },
          net: { lo: { rx: 4e8, tx: 4e8 } },
          disk: { vda: { read: 0, write: 1e6, readOps: 0, writeOps: 10, util: 0.01 } },
          procs: { benchspec: { cpu: 0.4, rss: 1e8, count: 1, busiestThread: 0.3 } },
        },
      ],
    };
    const message = {
      t: "result" as const,
      from: 3,
      case: "o.store.put",
      repetition: 1,
      warmup: false,
      measurement,
    };
    const lines = new FromWorkerLines();
    const decoded = encodeFromWorker(message)
      .trimEnd()
      .split("\n")
      .map((line) => lines.decode(line))
      .filter((m) => m !== undefined);
    expect(decoded).toEqual([message]);

    const broken = { ...message, measurement: { ...measurement, bytes: "many" } };
    expect(new FromWorkerLines().decode(JSON.stringify(broken))).toBeUndefined();
  });
});
