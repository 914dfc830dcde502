import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadSpec } from "../../src/engines/language.js";
import { diagnosticsOf, fsSpec, planOf, SPECS_DIR } from "../support/spec.js";

const UPLOAD_DOWNLOAD = join(SPECS_DIR, "object-upload-download.yaml");

async function planWith(file: string, sets: string[]) {
  const result = await loadSpec(file, { sets });
  if (!result.plan) throw new Error(result.diagnostics.map((d) => `${d.code} ${d.message}`).join("\n"));
  return result.plan;
}

const cells = (plan: Awaited<ReturnType<typeof planWith>>) =>
  plan.cases.map((c) => ({ op: c.op, concurrency: c.params.concurrency, objects: c.params.objects }));

describe("--set overrides a parameter everywhere in the workloads it applies to", () => {
  it("object-upload-download as written: include pairs objects with concurrency", async () => {
    expect(cells(await planWith(UPLOAD_DOWNLOAD, []))).toEqual([
      { op: "put", concurrency: 1, objects: 1 },
      { op: "put", concurrency: 50, objects: 50 },
      { op: "get", concurrency: 1, objects: 1 },
      { op: "get", concurrency: 50, objects: 50 },
    ]);
  });

  it("objects=2 (and transfer.objects=2) replaces the value of every include entry", async () => {
    for (const set of ["objects=2", "transfer.objects=2"]) {
      const plan = await planWith(UPLOAD_DOWNLOAD, ["size=1MiB", set]);
      expect(cells(plan), set).toEqual([
        { op: "put", concurrency: 1, objects: 2 },
        { op: "put", concurrency: 50, objects: 2 },
        { op: "get", concurrency: 1, objects: 2 },
        { op: "get", concurrency: 50, objects: 2 },
      ]);
      expect(plan.cases.every((c) => c.params.size === 2 ** 20)).toBe(true);
    }
  });

  it("concurrency=2 replaces the dimension; include entries for other concurrencies are dropped", async () => {
    const plan = await planWith(UPLOAD_DOWNLOAD, ["concurrency=2"]);
    expect(plan.cases.map((c) => c.id)).toEqual(["transfer.store.put", "transfer.store.get"]);
    expect(plan.cases.every((c) => c.params.concurrency === 2)).toBe(true);
    expect(new Set(plan.cases.map((c) => c.id)).size).toBe(plan.cases.length);

    const both = await planWith(UPLOAD_DOWNLOAD, ["concurrency=2", "objects=2"]);
    expect(cells(both)).toEqual([
      { op: "put", concurrency: 2, objects: 2 },
      { op: "get", concurrency: 2, objects: 2 },
    ]);
  });

  it("a list replaces the dimension and keeps the include entries for its values", async () => {
    expect(cells(await planWith(UPLOAD_DOWNLOAD, ["concurrency=[1, 4]"]))).toEqual([
      { op: "put", concurrency: 1, objects: 1 },
      { op: "put", concurrency: 4, objects: 16 }, // no entry for 4: the s3 default
      { op: "get", concurrency: 1, objects: 1 },
      { op: "get", concurrency: 4, objects: 16 },
    ]);
    // The scaled-down run in the spec's header still works as before.
    const scaled = await planWith(UPLOAD_DOWNLOAD, [
      "size=32MiB",
      "multipart={partSize: 8MiB, queue: 4}",
      "transfer.matrix.include=[{concurrency: 1, objects: 1}, {concurrency: 4, objects: 4}]",
      "concurrency=[1, 4]",
    ]);
    expect(cells(scaled)).toEqual([
      { op: "put", concurrency: 1, objects: 1 },
      { op: "put", concurrency: 4, objects: 4 },
      { op: "get", concurrency: 1, objects: 1 },
      { op: "get", concurrency: 4, objects: 4 },
    ]);
  });

  it("include entries made identical by an override are merged, not run twice", () => {
    const spec = fsSpec([
      {
        name: "w",
        op: "randread",
        matrix: {
          include: [
            { iodepth: 1, jobs: 1 },
            { iodepth: 32, jobs: 1 },
          ],
        },
      },
    ]);
    expect(planOf(spec).cases).toHaveLength(2);
    const plan = planOf(spec, ["iodepth=4"]);
    expect(plan.cases.map((c) => [c.params.iodepth, c.params.jobs])).toEqual([[4, 1]]);
  });

  it("a value given with --set is never excluded; exclude entries on other list values stay", () => {
    const spec = fsSpec([
      {
        name: "mix",
        op: "randrw",
        matrix: {
          read: [100, 70],
          bs: ["4KiB", "64KiB"],
          exclude: [{ bs: "64KiB", read: 100 }],
        },
      },
    ]);
    const single = planOf(spec, ["read=100"]);
    expect(single.cases.map((c) => [c.params.bs, c.params.read])).toEqual([
      [4096, 100],
      [65536, 100],
    ]);
    const list = planOf(spec, ["mix.bs=[4096B, 64KiB]"]);
    expect(list.cases.map((c) => [c.params.bs, c.params.read])).toEqual([
      [4096, 100],
      [4096, 70],
      [65536, 70],
    ]);
  });

  it("an include entry that adds a parameter gets the overriding value", () => {
    const spec = fsSpec([
      {
        name: "w",
        op: "randread",
        iodepth: 16,
        matrix: { bs: ["4KiB", "64KiB"], include: [{ bs: "4KiB", iodepth: 64 }] },
      },
    ]);
    expect(planOf(spec).cases.map((c) => c.params.iodepth)).toEqual([64, 16]);
    expect(planOf(spec, ["w.iodepth=2"]).cases.map((c) => c.params.iodepth)).toEqual([2, 2]);
    const swept = planOf(spec, ["iodepth=[1, 8]"]);
    // A list on the workload is a dimension before the matrix keys (§7), so iodepth varies slowest.
    expect(swept.cases.map((c) => [c.params.bs, c.params.iodepth])).toEqual([
      [4096, 1],
      [65536, 1],
      [4096, 8],
      [65536, 8],
    ]);
  });

  it("a list for a parameter that cannot be a list on a workload becomes a matrix dimension", () => {
    const spec = fsSpec([{ name: "w", op: "randread", duration: "10s", ramp: "1s" }]);
    const plan = planOf(spec, ["ramp=[0s, 2s]"]);
    expect(plan.cases.map((c) => c.params.ramp)).toEqual([0, 2]);
  });

  it("values are still validated like the spec's own", () => {
    const spec = fsSpec([{ name: "w", op: "randread", matrix: { iodepth: [1, 8] } }]);
    expect(diagnosticsOf(spec, ["iodepth=[2, 2]"])).toMatchObject([
      { code: "duplicate-value", path: ["workloads", 0, "iodepth", 1] },
    ]);
    expect(diagnosticsOf(spec, ["w.iodepth=0"])[0]).toMatchObject({ code: "out-of-range" });
    expect(diagnosticsOf(spec, ["w.iodepth=0"])[0]?.message).toMatch(/--set/);
  });
});

describe("--set refuses what a spec file may not hold, with a message instead of an internal error", () => {
  const spec = fsSpec([{ name: "w", op: "randread", bs: "4KiB" }]);

  it("an index a list does not have (negative, not a whole number, past its end) is an error", () => {
    const listed = fsSpec([
      {
        name: "w",
        engine: "fio",
        op: "read",
        size: "1MiB",
        matrix: { bs: ["4KiB"], include: [{ bs: "8KiB" }] },
      },
    ]);
    for (const index of ["-1", "1e400", "1", "99999999", "x"]) {
      const [diagnostic, ...more] = diagnosticsOf(listed, [`w.matrix.include.${index}.jobs=4`]);
      expect(more, index).toEqual([]);
      expect(diagnostic, index).toMatchObject({ code: "invalid-set" });
      expect(diagnostic!.message, index).toContain(
        `w.matrix.include is a list of 1 entry; "${index}" is not one of its indexes (0–0)`,
      );
    }
    expect(diagnosticsOf(listed, ["w.matrix.include.0.jobs=4"])).toEqual([]);
  });

  it("a path through a single value names it and says how to set it", () => {
    for (const [set, whole] of [
      ["w.bs.x=1", "w.bs"],
      ["name.x=1", "name"],
      ["w.op.0=read", "w.op"],
    ] as const) {
      const [diagnostic, ...more] = diagnosticsOf(spec, [set]);
      expect(more, set).toEqual([]);
      expect(diagnostic, set).toMatchObject({ code: "invalid-set" });
      expect(diagnostic!.message, set).toContain(`${whole} is a single value`);
    }
  });

  it("keys that could alter objects, in the path or in the value", () => {
    for (const set of [
      "targets.constructor.kind=fs",
      "vars.__proto__=1",
      "w.prototype=1",
      "vars={__proto__: {polluted: 1}}",
    ]) {
      const [diagnostic, ...more] = diagnosticsOf(spec, [set]);
      expect(more, set).toEqual([]);
      expect(diagnostic, set).toMatchObject({ code: "invalid-set" });
      expect(diagnostic!.message, set).toMatch(/"(__proto__|constructor|prototype)" .*alter objects/);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("--only", () => {
  it("keeps only the named workloads, with their expectations and charts; the plan is of what runs", async () => {
    const file = join(SPECS_DIR, "cloud-disk-pts.yaml");
    const whole = (await loadSpec(file)).plan!;
    const workloads = [...new Set(whole.cases.map((c) => c.workload))];
    expect(workloads.length).toBeGreaterThan(1);
    const [first] = workloads;
    const only = (await loadSpec(file, { only: [first!] })).plan!;
    expect(new Set(only.cases.map((c) => c.workload))).toEqual(new Set([first]));
    expect(only.cases.map((c) => c.id)).toEqual(
      whole.cases.filter((c) => c.workload === first).map((c) => c.id),
    );
    expect(only.expect.every((e) => e.workload === first)).toBe(true);
    expect(Object.keys(only.workloads)).toEqual([first]);
    expect(only.specHash).not.toBe(whole.specHash);
    // Comma-separated or repeated, the same.
    const two = (await loadSpec(file, { only: workloads.slice(0, 2) })).plan!;
    expect(new Set(two.cases.map((c) => c.workload))).toEqual(new Set(workloads.slice(0, 2)));
  });

  it("names the workloads the spec has when one named is not among them", async () => {
    const { diagnostics, plan } = await loadSpec(join(SPECS_DIR, "quickstart.yaml"), {
      only: ["fio-4k", "nope"],
    });
    expect(plan).toBeUndefined();
    expect(diagnostics).toMatchObject([
      {
        code: "invalid-set",
        message: "--only nope: the spec has no such workload; its workloads: dd-seq, fio-4k",
      },
    ]);
  });
});
