/** A target's vars: its own values of the spec's vars, in expect bounds and report limits. */
import { describe, expect, it } from "vitest";
import { buildSummary } from "../../src/results/summary.js";
import type { ResultRow } from "../../src/rows/row.js";
import { diagnosticsOf, planOf } from "../support/spec.js";

/** Two disks of 100 and 400 GiB, one expectation and one limit over the vendor's formulas. */
const spec = (extra: { targets?: object; expect?: object[]; limits?: object[] } = {}) => ({
  benchspec: 1,
  name: "two-disks",
  vars: { capacityGiB: 100, iopsLimit: "min(1000 + 6 * capacityGiB, 3000)" },
  targets: extra.targets ?? {
    small: { kind: "fs", path: "/tmp/a" },
    large: { kind: "fs", path: "/tmp/b", vars: { capacityGiB: 400 } },
  },
  workloads: [{ name: "rand", op: "randread", bs: "4KiB", target: ["small", "large"] }],
  expect: extra.expect ?? [{ workload: "rand", metric: "iops", atLeast: "iopsLimit" }],
  report: {
    limits: extra.limits ?? [{ label: "vendor", throughput: "min(50 + 0.1 * capacityGiB, 80) * 1MB/s" }],
  },
});

describe("target vars", () => {
  it("one expectation gives each target's cases their own bound, the vars that use it following", () => {
    const plan = planOf(spec());
    const [expectation] = plan.expect;
    expect(expectation!.atLeast).toBe(1600); // the spec's: 1000 + 6 × 100
    expect(expectation!.atLeastText).toBe("iopsLimit");
    expect(plan.targetVars).toEqual({ large: { capacityGiB: 400, iopsLimit: 3000 } });
    const large = plan.cases.find((c) => c.target === "large")!;
    expect(expectation!.byCase).toEqual({ [large.id]: { atLeast: 3000, target: "large" } });
  });

  it("each case is checked against its own bound (the summary says whose vars)", () => {
    const plan = planOf(spec());
    const row = (c: (typeof plan.cases)[number], iops: number) =>
      ({ case: c.id, repetition: 0, ok: true, iops, throughput: iops * 4096, seconds: 1 }) as ResultRow;
    const rows = plan.cases.map((c) => row(c, 2000));
    const { expect: results } = buildSummary(plan, rows);
    expect(results.map((r) => [r.atLeast, r.target, r.status])).toEqual([
      [1600, undefined, "met"],
      [3000, "large", "not met"],
    ]);
  });

  it("a limit over a var a target sets is one limit per target; a named target's uses its vars", () => {
    const plan = planOf(spec());
    const MB = 1e6;
    expect(plan.report.limits).toEqual([
      {
        label: "vendor",
        text: "min(50 + 0.1 * capacityGiB, 80) * 1MB/s",
        throughput: 60 * MB,
        target: "small",
      },
      {
        label: "vendor",
        text: "min(50 + 0.1 * capacityGiB, 80) * 1MB/s",
        throughput: 80 * MB,
        target: "large",
      },
    ]);
    const named = planOf(spec({ limits: [{ label: "rated", iops: "iopsLimit", target: "large" }] }));
    expect(named.report.limits).toEqual([{ label: "rated", iops: 3000, text: "iopsLimit", target: "large" }]);
    // A constant limit stays one, as written.
    const plain = planOf(spec({ limits: [{ label: "NIC", throughput: "25Gbit/s" }] }));
    expect(plain.report.limits).toEqual([{ label: "NIC", throughput: 25e9 / 8 }]);
  });

  it("a target var the spec does not declare is located at its key", () => {
    const diagnostics = diagnosticsOf(
      spec({ targets: { small: { kind: "fs", vars: { capacityGB: 100 } }, large: { kind: "fs" } } }),
    );
    expect(diagnostics).toMatchObject([
      { code: "unknown-var", path: ["targets", "small", "vars", "capacityGB"], severity: "error" },
    ]);
    expect(diagnostics[0]!.message).toContain('did you mean "capacityGiB"');
    expect(diagnostics[0]!.line).toBeGreaterThan(0);
  });

  it("a limit formula that does not evaluate names its path; so does an unknown limit target", () => {
    const diagnostics = diagnosticsOf(
      spec({
        limits: [
          { label: "bad", iops: "6 * capacity" },
          { label: "lost", iops: 10, target: "medium" },
        ],
      }),
    );
    expect(diagnostics).toMatchObject([
      { code: "unknown-target", path: ["report", "limits", 1, "target"] },
      { code: "unknown-var", path: ["report", "limits", 0, "iops"] },
    ]);
  });

  it("a target's var that fails to evaluate is reported at the target", () => {
    const diagnostics = diagnosticsOf(
      spec({
        targets: {
          small: { kind: "fs" },
          large: { kind: "fs", vars: { capacityGiB: "iopsLimit * 2" } },
        },
      }),
    );
    expect(diagnostics).toMatchObject([
      { code: "unknown-var", path: ["targets", "large", "vars", "capacityGiB"] },
    ]);
  });
});

describe("target vars, evaluated once for what they change", () => {
  it("re-evaluates the vars that use a target's (transitively); the others are the spec's, inherited", () => {
    const plan = planOf({
      benchspec: 1,
      name: "chain",
      vars: { a: 1, b: "a * 2", c: "b + 1", d: 7 },
      targets: { t: { kind: "fs", path: "/tmp/t", vars: { a: 10 } } },
      workloads: [{ name: "w", op: "read", target: "t" }],
    });
    const t = plan.targetVars!.t!;
    expect({ a: t.a, b: t.b, c: t.c, d: t.d }).toEqual({ a: 10, b: 20, c: 21, d: 7 });
    // Only what differs is the record's own (and what JSON shows).
    expect(JSON.parse(JSON.stringify(plan.targetVars))).toEqual({ t: { a: 10, b: 20, c: 21 } });
  });

  it("a target's var may use only the vars above it, as the spec's may", () => {
    const diagnostics = diagnosticsOf({
      benchspec: 1,
      name: "order",
      vars: { a: 1, b: 2 },
      targets: { t: { kind: "fs", path: "/tmp/t", vars: { a: "b + 1" } } },
      workloads: [{ name: "w", op: "read", target: "t" }],
    });
    expect(diagnostics).toMatchObject([
      {
        code: "unknown-var",
        path: ["targets", "t", "vars", "a"],
        message: '"b" is defined further down; a var may only use the vars above it',
      },
    ]);
  });
});
