import { describe, expect, it } from "vitest";
import { targetRounds } from "../../src/plan/types.js";
import { diagnosticsOf, fsSpec, planOf } from "../support/spec.js";

describe("expansion", () => {
  it("resolves every parameter and records where it came from", () => {
    const plan = planOf(
      fsSpec([{ name: "w", op: "randrw", bs: ["4KiB", "1MiB"], iodepth: 8 }], {
        defaults: { repeat: 3, concurrency: 9 },
      }),
    );
    expect(plan.cases.map((c) => c.id)).toEqual(["w.scratch.randrw.bs-4KiB", "w.scratch.randrw.bs-1MiB"]);
    const [first] = plan.cases;
    expect(first?.engine).toBe("fio");
    expect(first?.params).toMatchObject({ bs: 4096, iodepth: 8, repeat: 3, read: 50, size: 64 * 2 ** 20 });
    expect(first?.sources).toMatchObject({
      bs: "matrix",
      iodepth: "workload",
      repeat: "defaults",
      read: "builtin",
    });
    // a spec-wide default that means nothing to fio is not carried into the case
    expect(first?.params).not.toHaveProperty("concurrency");
    expect(first?.dims).toEqual(["bs"]);
  });

  it("gives the same ids for the same spec and distinct ids to every case", () => {
    const spec = fsSpec([
      {
        name: "w",
        op: ["read", "write"],
        matrix: { bs: ["4KiB", "8KiB"], iodepth: [1, 32], include: [{ bs: "8KiB", iodepth: 32, jobs: 4 }] },
      },
    ]);
    const ids = planOf(spec).cases.map((c) => c.id);
    expect(planOf(spec).cases.map((c) => c.id)).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toContain("w.scratch.write.bs-8KiB.iodepth-32.jobs-4");
  });

  it("defaults the target when the spec has only one, and the engine from the target kind", () => {
    const plan = planOf({
      benchspec: 1,
      name: "t",
      targets: { obj: { kind: "s3", launch: "minio" } },
      workloads: [{ name: "w", op: "put" }],
    });
    expect(plan.cases[0]).toMatchObject({
      target: "obj",
      engine: "s3",
      params: { concurrency: 4, objects: 16 },
    });
  });

  it("keeps engine-specific parameters to the cases whose engine uses them", () => {
    const plan = planOf({
      benchspec: 1,
      name: "t",
      targets: { ipfs: { kind: "ipfs", launch: "kubo" }, s3: { kind: "s3", launch: "minio" } },
      workloads: [{ name: "w", target: ["ipfs", "s3"], op: "put", chunker: "size-1048576" }],
    });
    expect(plan.cases[0]?.params.chunker).toBe("size-1048576");
    expect(plan.cases[1]?.params).not.toHaveProperty("chunker");
  });

  it("rejects a parameter that none of the workload's cases can use", () => {
    const diagnostics = diagnosticsOf(fsSpec([{ name: "w", engine: "dd", op: "write", iodepth: 4 }]));
    expect(diagnostics).toMatchObject([{ code: "param-not-applicable", path: ["workloads", 0, "iodepth"] }]);
    expect(diagnostics[0]?.message).toMatch(/used by fio/);
  });

  it("evaluates expectations and finds the cases they apply to", () => {
    const plan = planOf(
      fsSpec([{ name: "w", op: "randread", bs: ["4KiB", "8KiB"] }], {
        vars: { capacityGiB: 400, floor: "capacityGiB / 2" },
        expect: [
          {
            workload: "w",
            where: { bs: "4KiB" },
            metric: "iops",
            atLeast: "min(1000 + 6 * capacityGiB, 3000) + floor",
          },
        ],
      }),
    );
    expect(plan.vars).toEqual({ capacityGiB: 400, floor: 200 });
    expect(plan.expect[0]).toMatchObject({ atLeast: 3200, cases: ["w.scratch.randread.bs-4KiB"] });
  });

  it("applies --set overrides like spec values", () => {
    const spec = fsSpec([
      { name: "w", op: "write", engine: "dd", bs: "1MiB", matrix: { parallel: [10, 20, 40] } },
    ]);
    const plan = planOf(spec, ["parallel=[1, 2]", "w.bs=4KiB", "repeat=2"]);
    expect(plan.cases.map((c) => [c.params.parallel, c.params.bs, c.params.repeat])).toEqual([
      [1, 4096, 2],
      [2, 4096, 2],
    ]);
    expect(diagnosticsOf(spec, ["w.bs=4K"])[0]).toMatchObject({ code: "invalid-unit" });
    expect(diagnosticsOf(spec, ["w.bs=4K"])[0]?.message).toMatch(/--set/);
    expect(diagnosticsOf(spec, ["nope.bs=4KiB"])[0]).toMatchObject({ code: "invalid-set" });
    expect(diagnosticsOf(spec, ["novalue"])[0]).toMatchObject({ code: "invalid-set" });
  });

  it("reports the spec hash independent of formatting and comments", () => {
    const a = planOf(fsSpec([{ name: "w", op: "read" }]));
    const text =
      "# a comment\nbenchspec: 1\nname: t\ntargets:\n  scratch: {kind: fs}\nworkloads: [{name: w, op: read}]\n";
    const b = diagnosticsOf(text);
    expect(b).toEqual([]);
    expect(a.specHash).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("rounds", () => {
  const rounds = (extra: object = {}, track: object = { where: { bs: "4KiB" }, metric: "iops" }) =>
    fsSpec([{ name: "w", op: "randwrite", bs: ["4KiB", "64KiB"], rounds: { track, ...extra } }], {
      defaults: { repeat: 3 },
    });

  it("applies the PTS defaults, finds the tracked case and makes max the cases' repetitions", () => {
    const plan = planOf(rounds());
    expect(plan.workloads.w?.rounds).toEqual({
      track: { where: { bs: 4096 }, metric: "iops", cases: { scratch: "w.scratch.randwrite.bs-4KiB" } },
      window: 5,
      excursion: 20,
      slope: 10,
      max: 25,
    });
    // The spec's default repeat does not apply: a round is one repetition of every case.
    expect(plan.cases.map((c) => c.params.repeat)).toEqual([25, 25]);
  });

  it("refuses a track.where that selects no case or several", () => {
    const none = diagnosticsOf(rounds({}, { where: { bs: "8KiB" }, metric: "iops" }));
    expect(none).toContainEqual(
      expect.objectContaining({
        code: "track-not-one-case",
        path: ["workloads", 0, "rounds", "track", "where"],
        message: expect.stringContaining("selects no case"),
      }),
    );
    const several = diagnosticsOf(rounds({}, { where: {}, metric: "iops" }));
    expect(several).toContainEqual(
      expect.objectContaining({
        code: "track-not-one-case",
        message: expect.stringContaining("selects 2 cases"),
      }),
    );
  });

  it("refuses repeat on a workload in rounds", () => {
    const spec = fsSpec([
      {
        name: "w",
        op: "randwrite",
        bs: "4KiB",
        repeat: 3,
        rounds: { track: { where: {}, metric: "iops" } },
      },
    ]);
    expect(diagnosticsOf(spec)).toContainEqual(
      expect.objectContaining({ code: "conflicting-keys", path: ["workloads", 0, "repeat"] }),
    );
  });

  describe("on several targets", () => {
    const twoTargets = (where: object) =>
      fsSpec(
        [
          {
            name: "w",
            op: "randwrite",
            target: ["disk1", "disk2"],
            bs: ["4KiB", "64KiB"],
            rounds: { track: { where, metric: "iops" } },
          },
        ],
        { targets: { disk1: { kind: "fs" }, disk2: { kind: "fs" } } },
      );

    it("tracks one case per target, in the order the cases come", () => {
      const plan = planOf(twoTargets({ bs: "4KiB" }));
      expect(plan.workloads.w?.rounds?.track.cases).toEqual({
        disk1: "w.disk1.randwrite.bs-4KiB",
        disk2: "w.disk2.randwrite.bs-4KiB",
      });
      expect(Object.keys(plan.workloads.w!.rounds!.track.cases)).toEqual(["disk1", "disk2"]);
      expect(targetRounds(plan.workloads.w!.rounds!).map((r) => [r.target, r.track.case, r.max])).toEqual([
        ["disk1", "w.disk1.randwrite.bs-4KiB", 25],
        ["disk2", "w.disk2.randwrite.bs-4KiB", 25],
      ]);
    });

    it("refuses a where that selects two cases of one target, naming it", () => {
      const diagnostics = diagnosticsOf(twoTargets({}));
      for (const target of ["disk1", "disk2"])
        expect(diagnostics).toContainEqual(
          expect.objectContaining({
            code: "track-not-one-case",
            path: ["workloads", 0, "rounds", "track", "where"],
            message: expect.stringContaining(`selects 2 cases on target "${target}"`),
          }),
        );
    });

    it("refuses a where that names one target: the other has no tracked case", () => {
      const diagnostics = diagnosticsOf(twoTargets({ bs: "4KiB", target: "disk1" }));
      const refused = diagnostics.filter((d) => d.code === "track-not-one-case");
      expect(refused).toHaveLength(1);
      expect(refused[0]!.message).toContain('selects no case of workload "w" on target "disk2"');
    });
  });

  it("refuses a window larger than max", () => {
    expect(diagnosticsOf(rounds({ window: 6, max: 5 }))).toContainEqual(
      expect.objectContaining({ code: "out-of-range", path: ["workloads", 0, "rounds", "max"] }),
    );
  });
});

describe("the case limit", () => {
  it("names the plan's total when a later workload takes it over the limit, before building it", () => {
    const bs = Array.from({ length: 250 }, (_, i) => `${i + 1}KiB`);
    const iodepth = Array.from({ length: 240 }, (_, i) => i + 1);
    const workload = (name: string) => ({ name, op: "randread", size: "1GiB", bs, iodepth });
    const diagnostics = diagnosticsOf(fsSpec([workload("a"), workload("b")]));
    expect(diagnostics).toMatchObject([
      {
        code: "too-many-cases",
        path: ["workloads", 1],
        message:
          "this workload's 60,000 cases would bring the plan to 120,000 (60,000 before it); the limit is 100,000",
      },
    ]);
  });
});
