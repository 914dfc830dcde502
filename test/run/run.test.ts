import { execa } from "execa";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, readlink, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { makePayload } from "../../src/engines/load/payload.js";
import { readRows } from "../../src/results/ndjson.js";
import { ResultRowSchema, type ResultRow } from "../../src/rows/row.js";
import type { RunSummary } from "../../src/results/summary.js";
import type { Provenance } from "../../src/results/run-dir.js";
import { runCli } from "../support/cli.js";
import { loopDevice } from "../support/loop.js";
import { ROOT } from "../support/spec.js";

const temps: string[] = [];
const tempDir = async (prefix = "benchspec-run-") => {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
};
afterAll(() => Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true }))));

async function writeSpec(spec: object): Promise<string> {
  const file = join(await tempDir(), "spec.yaml");
  await writeFile(file, stringify({ benchspec: 1, name: "t", ...spec }));
  return file;
}

const rowsOf = (dir: string) => readRows<ResultRow>(join(dir, "results.ndjson"));
const json = async <T>(file: string) => JSON.parse(await readFile(file, "utf8")) as T;

describe("benchspec run on a directory (real dd and fio)", () => {
  it("measures dd and fio, with exact byte counts, statistics and provenance", async () => {
    const target = await tempDir();
    await writeFile(join(target, "planted.txt"), "precious");
    const spec = await writeSpec({
      targets: { scratch: { kind: "fs", path: target } },
      defaults: { repeat: 2 },
      workloads: [
        {
          name: "dd",
          engine: "dd",
          op: ["write", "read"],
          bs: "64KiB",
          count: 32,
          matrix: { parallel: [1, 3] },
        },
        {
          name: "fio",
          engine: "fio",
          op: "randwrite",
          ioengine: "psync",
          size: "8MiB",
          bs: "4KiB",
          warmup: 1,
        },
        {
          name: "ts",
          engine: "fio",
          op: "randread",
          ioengine: "psync",
          size: "4MiB",
          bs: "4KiB",
          duration: "1s",
          sample: "250ms",
          repeat: 1,
        },
      ],
      expect: [
        { workload: "dd", where: { op: "write", parallel: 1 }, metric: "throughput", atLeast: "1MB/s" },
      ],
    });
    const out = join(await tempDir(), "run");
    const result = await runCli(["run", spec, "--out", out]);
    expect(result.stderr).toContain("expectations: 1 of 1 met");
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(out);

    const rows = rowsOf(out);
    for (const row of rows) expect(() => ResultRowSchema.parse(row)).not.toThrow();
    const measured = rows.filter((r) => !r.warmup);
    expect(measured).toHaveLength(4 * 2 + 2 + 1);
    expect(rows.filter((r) => r.warmup).map((r) => r.case)).toEqual(["fio.scratch.randwrite"]);
    for (const row of measured.filter((r) => r.engine === "dd")) {
      const parallel = row.params.parallel as number;
      expect(row.bytes).toBe(parallel * 64 * 1024 * 32);
      expect(row.jobs).toHaveLength(parallel);
      expect(row.jobs!.every((job) => job.bytes === 64 * 1024 * 32 && job.seconds > 0)).toBe(true);
      expect(row.throughput).toBeCloseTo(row.bytes / row.seconds, 0);
    }
    const fio = measured.filter((r) => r.case === "fio.scratch.randwrite");
    for (const row of fio) {
      expect(row.bytes).toBe(8 * 2 ** 20);
      expect(row.ops).toBe(2048);
      expect(row.latency?.p99).toBeGreaterThan(0);
      expect(row.latency!.p50!).toBeLessThanOrEqual(row.latency!.p99!);
    }
    const series = readRows<{ case: string; t: number; iops: number }>(join(out, "timeseries.ndjson"));
    expect(series.filter((p) => p.case === "ts.scratch.randread").length).toBeGreaterThanOrEqual(3);
    expect(series.every((p) => p.iops > 0)).toBe(true);

    const summary = await json<RunSummary>(join(out, "summary.json"));
    const ddWrite = summary.cases.find((c) => c.id === "dd.scratch.write.parallel-1")!;
    expect(ddWrite.metrics.throughput).toMatchObject({
      n: 2,
      ci95: expect.any(Array),
      cv: expect.any(Number),
    });
    expect(summary.cases.find((c) => c.id === "ts.scratch.randread")!.warnings.join()).toMatch(
      /only 1 repetition/,
    );
    expect(summary.expect).toEqual([expect.objectContaining({ pass: true, atLeast: 1e6 })]);

    const provenance = await json<Provenance>(join(out, "provenance.json"));
    expect(provenance.spec.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(provenance.host).toMatchObject({
      cores: expect.any(Number),
      kernel: expect.any(String),
      cpu: expect.any(String),
    });
    expect(provenance.versions).toMatchObject({
      node: process.version,
      fio: expect.stringMatching(/^fio-/),
      dd: expect.stringContaining("dd"),
    });
    expect(provenance.targets.scratch?.fsType).toEqual(expect.any(String));
    expect(provenance.start < provenance.end!).toBe(true);
    expect((await json<{ status: string }>(join(out, "run.json"))).status).toBe("complete");
    expect(existsSync(join(out, "raw", "fio.scratch.randwrite.r1.json"))).toBe(true);

    // The target keeps what was there before and nothing of the run.
    expect(await readdir(target)).toEqual(["planted.txt"]);
    expect(await readFile(join(target, "planted.txt"), "utf8")).toBe("precious");
  });

  it("agrees with fio and dd run directly on the same workload", async () => {
    const spec = await writeSpec({
      targets: { scratch: { kind: "fs" } },
      workloads: [
        { name: "fio", engine: "fio", op: "write", ioengine: "psync", size: "32MiB", bs: "1MiB", repeat: 3 },
        { name: "dd", engine: "dd", op: "write", bs: "1MiB", count: 32, data: "zero", repeat: 3 },
      ],
    });
    const out = join(await tempDir(), "run");
    expect((await runCli(["run", spec, "--out", out])).code).toBe(0);
    const summary = await json<RunSummary>(join(out, "summary.json"));
    const median = (id: string) => summary.cases.find((c) => c.id === id)!.metrics.throughput!.median;

    const dir = await tempDir();
    const direct: number[] = [];
    for (let i = 0; i < 3; i++) {
      const { stdout } = await execa("fio", [
        "--name=direct",
        `--directory=${dir}`,
        "--rw=write",
        "--bs=1048576",
        "--size=33554432",
        "--ioengine=psync",
        "--output-format=json",
      ]);
      direct.push(JSON.parse(stdout).jobs[0].write.bw_bytes);
      const dd = await execa("dd", ["if=/dev/zero", `of=${join(dir, "dd")}`, "bs=1048576", "count=32"], {
        env: { LC_ALL: "C" },
      });
      direct.push(Number(/copied, ([\d.]+) s/.exec(dd.stderr)![1]));
    }
    const fioDirect = [direct[0]!, direct[2]!, direct[4]!].sort((a, b) => a - b)[1]!;
    const ddDirect = (32 * 2 ** 20) / [direct[1]!, direct[3]!, direct[5]!].sort((a, b) => a - b)[1]!;
    // Same order of magnitude: a shared 2-core machine is noisy; a unit or byte-count error is not within 10×.
    expect(median("fio.scratch.write") / fioDirect).toBeGreaterThan(0.1);
    expect(median("fio.scratch.write") / fioDirect).toBeLessThan(10);
    expect(median("dd.scratch.write") / ddDirect).toBeGreaterThan(0.1);
    expect(median("dd.scratch.write") / ddDirect).toBeLessThan(10);
    expect(
      rowsOf(out)
        .filter((r) => r.case === "fio.scratch.write")
        .every((r) => r.bytes === 32 * 2 ** 20),
    ).toBe(true);
  });

  it("dd writes new payload bytes every repetition, reads files of the payload, and leaves no source behind", async () => {
    const dir = await tempDir();
    const spec = await writeSpec({
      targets: { scratch: { kind: "fs", path: dir, keep: true } },
      workloads: [{ name: "dd", engine: "dd", op: ["write", "read"], bs: "64KiB", count: 16, repeat: 3 }],
    });
    const out = join(await tempDir(), "run");
    const shmBefore = existsSync("/dev/shm") ? await readdir("/dev/shm") : [];
    const result = await runCli(["run", spec, "--out", out]);
    expect(result.code, result.stderr).toBe(0);
    const { runId } = await json<Provenance>(join(out, "provenance.json"));
    const runDir = (await readdir(dir)).find((name) => name.startsWith("benchspec-"))!;
    const file = (c: string) => readFile(join(dir, runDir, c, "dd.0"));
    const bytes = 16 * 64 * 1024;
    const payload = (identity: string) =>
      makePayload(`${runId}|${identity}`, bytes, "random").slice(0, bytes);
    // What the last repetition wrote: its own bytes, not the first repetition's (the source is refilled).
    const written = await file("dd.scratch.write");
    expect(written.equals(payload("dd.scratch.write|r3"))).toBe(true);
    expect(written.equals(payload("dd.scratch.write|r1"))).toBe(false);
    expect((await file("dd.scratch.read")).equals(payload("dd.scratch.read|0"))).toBe(true);
    for (const row of rowsOf(out)) expect(row).toMatchObject({ ok: true, bytes });
    const shmAfter = existsSync("/dev/shm") ? await readdir("/dev/shm") : [];
    expect(shmAfter.filter((name) => name.startsWith("benchspec-dd-") && !shmBefore.includes(name))).toEqual(
      [],
    );
  });

  it("exits 1 and names the expectation that was not met, and the case that failed", async () => {
    const spec = await writeSpec({
      targets: { scratch: { kind: "fs" } },
      workloads: [
        { name: "dd", engine: "dd", op: "write", bs: "64KiB", count: 4 },
        {
          name: "bad",
          engine: "fio",
          op: "read",
          ioengine: "libaio",
          direct: true,
          size: "1MiB",
          bs: "512B",
          repeat: 2,
        },
      ],
      expect: [{ workload: "dd", metric: "throughput", atLeast: "1000GB/s" }],
    });
    const out = join(await tempDir(), "run");
    const result = await runCli(["run", spec, "--out", out]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /expectation not met: expect\[0\] dd\.scratch\.write throughput [\d.,]+ [kMG]?B\/s \(expected ≥ 1,000 GB\/s\)/,
    );
    const summary = await json<RunSummary>(join(out, "summary.json"));
    expect(summary.failedExpectations).toBe(1);
    // 512-byte O_DIRECT reads on a file system with 4 KiB blocks fail: recorded, never averaged in.
    const bad = summary.cases.find((c) => c.id === "bad.scratch.read")!;
    if (bad.failed > 0) {
      expect(bad.metrics.throughput).toBeUndefined();
      expect(result.stderr).toContain("failed: bad.scratch.read");
    }
  });

  it("a repetition that fails (a full file system) fails its case, is never averaged in, and exits 1", async () => {
    const loop = await loopDevice(16);
    try {
      const dir = await loop.mount();
      const spec = await writeSpec({
        targets: { small: { kind: "fs", path: dir } },
        workloads: [
          { name: "fits", engine: "dd", op: "write", bs: "1MiB", count: 2, repeat: 2 },
          { name: "full", engine: "dd", op: "write", bs: "1MiB", count: 64, repeat: 2 },
        ],
      });
      const out = join(await tempDir(), "run");
      const result = await runCli(["run", spec, "--out", out]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("failed: full.small.write: 2 of 2 repetitions");
      expect(result.stderr).toMatch(/No space left on device/);
      const summary = await json<RunSummary>(join(out, "summary.json"));
      expect(summary.failedCases).toEqual(["full.small.write"]);
      const full = summary.cases.find((c) => c.id === "full.small.write")!;
      expect(full.metrics.throughput).toBeUndefined();
      const fits = summary.cases.find((c) => c.id === "fits.small.write")!;
      expect(fits.metrics.throughput!.n).toBe(2);
      expect(rowsOf(out).map((row) => [row.case, row.ok])).toEqual([
        ["fits.small.write", true],
        ["fits.small.write", true],
        ["full.small.write", false],
        ["full.small.write", false],
      ]);
    } finally {
      await loop.detach();
    }
  });

  it("a target path that fio would rewrite ($ncpus, $HOME, ':') is benchmarked as it is", async () => {
    const root = await tempDir();
    const dir = join(root, "a $ncpus $HOME b:c [global] ;d");
    await mkdir(dir);
    await writeFile(join(dir, "planted"), "user data");
    const spec = await writeSpec({
      targets: { odd: { kind: "fs", path: dir } },
      workloads: [{ name: "f", engine: "fio", op: "write", size: "1MiB", bs: "64KiB", ioengine: "psync" }],
    });
    const out = join(await tempDir(), "run");
    const result = await runCli(["run", spec, "--out", out]);
    expect(result.code, result.stderr).toBe(0);
    expect(rowsOf(out).map((row) => [row.ok, row.bytes])).toEqual([[true, 1024 * 1024]]);
    expect(await readdir(dir)).toEqual(["planted"]); // its files were inside benchspec's own subdirectory
    expect(await readdir(root)).toEqual([dir.slice(root.length + 1)]); // fio wrote nowhere else
    // The symlink fio was given (its own directory in the temp dir) went with the fio run.
    const links = (await readdir(tmpdir())).filter((name) => name.startsWith("benchspec-fio-"));
    const targets = await Promise.all(
      links.map((name) => readlink(join(tmpdir(), name, "target")).catch(() => "")),
    );
    expect(targets.filter((target) => target.startsWith(dir))).toEqual([]);
  });
});

describe("fs targets and their paths", () => {
  it("two targets on one path each get a directory of their own, and both run", async () => {
    const dir = await tempDir();
    const spec = await writeSpec({
      targets: { drive1: { kind: "fs", path: dir }, drive2: { kind: "fs", path: dir } },
      workloads: [
        { name: "w", engine: "dd", op: "write", bs: "64KiB", count: 4, target: ["drive1", "drive2"] },
      ],
    });
    const out = join(await tempDir(), "run");
    const result = await runCli(["run", spec, "--out", out]);
    expect(result.code, result.stderr).toBe(0);
    expect(rowsOf(out).map((row) => [row.case, row.ok])).toEqual([
      ["w.drive1.write", true],
      ["w.drive2.write", true],
    ]);
  });

  it.runIf(process.getuid?.() === 0)(
    "a read-only path is said as such, a missing one as missing, each once with its target's name",
    async () => {
      const dir = await tempDir();
      await execa("mount", ["-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", dir]);
      try {
        const spec = await writeSpec({
          targets: { ro: { kind: "fs", path: dir }, missing: { kind: "fs", path: join(dir, "sub") } },
          workloads: [
            { name: "w", engine: "dd", op: "write", bs: "64KiB", count: 1, target: ["ro", "missing"] },
          ],
        });
        const out = join(await tempDir(), "run");
        const result = await runCli(["run", spec, "--out", out]);
        expect(result.code).toBe(1);
        const [ro, missing] = rowsOf(out);
        expect(ro!.error).toMatch(
          /^target "ro": cannot create .*\/benchspec-ro-[^ ]+: read-only file system$/,
        );
        expect(missing!.error).toBe(
          `target "missing": its path ${join(dir, "sub")} does not exist (benchspec creates only its own directory in it)`,
        );
      } finally {
        await execa("umount", [dir]);
      }
    },
  );
});

describe("run --only", () => {
  it("runs only the named workloads, records them, and --resume keeps to them", async () => {
    const spec = await writeSpec({
      targets: { scratch: { kind: "fs" } },
      workloads: [
        { name: "a", engine: "dd", op: "write", bs: "64KiB", count: 2 },
        { name: "b", engine: "dd", op: "write", bs: "64KiB", count: 2 },
      ],
    });
    const out = join(await tempDir(), "run");
    const result = await runCli(["run", spec, "--only", "b", "--out", out]);
    expect(result.code, result.stderr).toBe(0);
    expect(rowsOf(out).map((row) => row.case)).toEqual(["b.scratch.write"]);
    expect((await json<{ only?: string[] }>(join(out, "run.json"))).only).toEqual(["b"]);
    const resumed = await runCli(["run", "--resume", out]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(rowsOf(out).map((row) => row.case)).toEqual(["b.scratch.write"]);
    const changed = await runCli(["run", "--resume", out, "--only", "a"]);
    expect(changed.code).toBe(2);
    expect(changed.stderr).toContain("--set, --hosts and --only cannot change them");
  });
});

describe("benchspec run without fio", () => {
  it("runs the quickstart's dd cases and skips its fio cases with a message", async () => {
    // A PATH with dd and bash but no fio, as on a machine with nothing but coreutils.
    const bin = await tempDir();
    for (const tool of ["dd", "bash"])
      await execa("ln", ["-s", (await execa("which", [tool])).stdout, join(bin, tool)]);
    const out = join(await tempDir(), "run");
    const result = await execa(
      process.execPath,
      [join(ROOT, "bin/benchspec.js"), "run", "specs/quickstart.yaml", "--out", out],
      {
        cwd: ROOT,
        reject: false,
        env: { PATH: bin, BENCHSPEC_TOOLS_DIR: bin },
        extendEnv: false,
      },
    );
    expect(result.stderr).toContain("skipped fio-4k.scratch.randread: fio is not installed");
    expect(result.exitCode).toBe(0);
    const summary = await json<RunSummary & { skipped: { case: string }[] }>(join(out, "summary.json"));
    expect(summary.skipped.map((s) => s.case)).toEqual([
      "fio-4k.scratch.randread",
      "fio-4k.scratch.randwrite",
    ]);
    expect(new Set(rowsOf(out).map((r) => r.engine))).toEqual(new Set(["dd"]));
  });
});

describe("benchspec run on block devices (real loop devices)", () => {
  const blockSpec = (device: string, extra: object = {}) =>
    writeSpec({
      targets: { disk: { kind: "block", device, ...extra } },
      workloads: [
        {
          name: "w",
          engine: "fio",
          op: "randwrite",
          ioengine: "psync",
          size: "4MiB",
          bs: "4KiB",
          direct: true,
        },
      ],
    });

  it("benchmarks a free device marked destructive, through a /dev/disk-style symlink", async () => {
    const loop = await loopDevice(16);
    try {
      const link = join(await tempDir(), "by-id-disk");
      await execa("ln", ["-s", loop.device, link]);
      const out = join(await tempDir(), "run");
      const result = await runCli(["run", await blockSpec(link, { destructive: true }), "--out", out]);
      expect(result.stderr).not.toContain("FAILED");
      expect(result.code).toBe(0);
      expect(rowsOf(out)[0]).toMatchObject({ ok: true, bytes: 4 * 2 ** 20 });
    } finally {
      await loop.detach();
    }
  });

  it.each(["gpt", "dos", "ext4"] as const)(
    "refuses a device holding %s (its partition unmounted), through a symlink, until overwrite names it exactly",
    async (holding) => {
      const loop = await loopDevice(16, { holding });
      try {
        const link = join(await tempDir(), "by-id-disk");
        await execa("ln", ["-s", loop.device, link]);
        const held = await loop.probe();
        const [type, uuid] = holding === "ext4" ? [held.TYPE, held.UUID] : [held.PTTYPE, held.PTUUID];
        expect(type).toBe(holding);
        const runWith = async (extra: object) => {
          const out = join(await tempDir(), "run");
          const result = await runCli([
            "run",
            await blockSpec(link, { destructive: true, ...extra }),
            "--out",
            out,
          ]);
          return { code: result.code, row: rowsOf(out)[0] };
        };
        const what =
          holding === "ext4" ? "signature" : `partition table with partitions ${basename(loop.device)}p1`;
        expect(await runWith({})).toMatchObject({
          code: 1,
          row: { ok: false, error: expect.stringContaining(`holds a ${holding} (uuid ${uuid}) ${what}`) },
        });
        expect(await runWith({ overwrite: { signature: holding, uuid: "0000" } })).toMatchObject({
          code: 1,
          row: {
            ok: false,
            error: expect.stringContaining(`overwrite names ${holding} (uuid 0000), but it holds`),
          },
        });
        expect(await loop.probe()).toEqual(held);
        expect(await runWith({ overwrite: { signature: holding, uuid } })).toMatchObject({
          code: 0,
          row: { ok: true },
        });
      } finally {
        await loop.detach();
      }
    },
  );

  it("refuses a device with a mounted file system whatever the spec says, and never writes to it", async () => {
    const loop = await loopDevice(16);
    try {
      const mountpoint = await loop.mount();
      await writeFile(join(mountpoint, "data.txt"), "keep me");
      const out = join(await tempDir(), "run");
      const spec = await blockSpec(loop.device, { destructive: true, overwrite: { signature: "ext4" } });
      const result = await runCli(["run", spec, "--out", out]);
      expect(result.code).toBe(1);
      expect(rowsOf(out)[0]).toMatchObject({ ok: false, error: expect.stringMatching(/mounted on/) });
      expect(await readFile(join(mountpoint, "data.txt"), "utf8")).toBe("keep me");
    } finally {
      await loop.detach();
    }
  });

  it("refuses a device that backs a loop device, mounted or not, and never writes to it", async () => {
    const loop = await loopDevice(16);
    // A second loop device over the first (as `losetup --offset` builds a partition-less layout), with a
    // file system the first one's writes would land in.
    const { stdout } = await execa("losetup", ["--offset", "1M", "--find", "--show", loop.device]);
    const over = stdout.trim();
    const mountpoint = join(await tempDir(), "over");
    try {
      await execa("mkfs.ext4", ["-q", over]);
      await execa("mkdir", ["-p", mountpoint]);
      await execa("mount", [over, mountpoint]);
      await writeFile(join(mountpoint, "data.txt"), "keep me");
      const spec = await blockSpec(loop.device, { destructive: true });
      const mounted = join(await tempDir(), "run");
      expect((await runCli(["run", spec, "--out", mounted])).code).toBe(1);
      expect(rowsOf(mounted)[0]).toMatchObject({
        ok: false,
        error: expect.stringContaining(`${over} (related to it) is mounted on ${mountpoint}`),
      });
      await execa("umount", [mountpoint]);
      const attached = join(await tempDir(), "run");
      expect((await runCli(["run", spec, "--out", attached])).code).toBe(1);
      expect(rowsOf(attached)[0]).toMatchObject({
        ok: false,
        error: expect.stringContaining(`loop device ${over} is attached over it`),
      });
      // The file system is whole: fsck finds nothing to repair, and the file is there.
      await execa("e2fsck", ["-n", "-f", over]);
      await execa("mount", [over, mountpoint]);
      expect(await readFile(join(mountpoint, "data.txt"), "utf8")).toBe("keep me");
    } finally {
      await execa("umount", [mountpoint], { reject: false });
      await execa("losetup", ["-d", over], { reject: false });
      await loop.detach();
    }
  });

  it("refuses to write without destructive: true (at validation)", async () => {
    const result = await runCli(["run", await blockSpec("/dev/loop-nonexistent")]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("[not-destructive]");
  });

  it("reads a read-only device: read workloads never open it for writing", async () => {
    const loop = await loopDevice(16, { readOnly: true });
    try {
      const spec = await writeSpec({
        targets: { disk: { kind: "block", device: loop.device } },
        workloads: [
          {
            name: "fio",
            engine: "fio",
            op: "randread",
            ioengine: "psync",
            size: "4MiB",
            bs: "4KiB",
            direct: true,
          },
          { name: "dd", engine: "dd", op: "read", bs: "64KiB", count: 16, parallel: 2, direct: true },
        ],
      });
      const out = join(await tempDir(), "run");
      const result = await runCli(["run", spec, "--out", out]);
      expect(result.stderr).not.toContain("FAILED");
      expect(result.code).toBe(0);
      expect(rowsOf(out).map((r) => [r.case, r.ok, r.bytes])).toEqual([
        ["fio.disk.randread", true, 4 * 2 ** 20],
        ["dd.disk.read", true, 2 * 16 * 64 * 1024],
      ]);
    } finally {
      await loop.detach();
    }
  });
});

describe("storage that fails mid-run", () => {
  const isRoot = process.getuid?.() === 0;
  const spec = (path: string) =>
    writeSpec({
      targets: { disk: { kind: "fs", path } },
      workloads: [
        { name: "w", engine: "fio", op: "write", bs: "64KiB", size: "4MiB", duration: "1s", repeat: 3 },
      ],
    });
  /** Resolves once the run has recorded its first repetition. */
  const firstRow = async (out: string) => {
    const deadline = Date.now() + 30_000;
    while (!existsSync(join(out, "results.ndjson")) || rowsOf(out).length === 0) {
      if (Date.now() > deadline) throw new Error("no repetition recorded in 30 s");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  it.runIf(isRoot)(
    "a target remounted read-only: the failing repetitions say why, cleanup failures are said, the run completes",
    async () => {
      const dir = await tempDir();
      await execa("mount", ["-t", "tmpfs", "-o", "size=16m", "tmpfs", dir]);
      try {
        const out = join(await tempDir(), "run");
        const running = runCli(["run", await spec(dir), "--out", out]);
        await firstRow(out);
        await execa("mount", ["-o", "remount,ro", dir]);
        const result = await running;
        expect(result.stderr).not.toContain("internal error");
        expect(result.code).toBe(1);
        expect(result.stderr).toMatch(/cleanup of target disk failed: EROFS/);
        const failed = rowsOf(out).filter((row) => !row.ok);
        expect(failed.length).toBeGreaterThan(0);
        for (const row of failed) expect(row.error).toMatch(/read-only file system \(EROFS\)/);
        expect((await json<{ status: string }>(join(out, "run.json"))).status).toBe("complete");
        expect(existsSync(join(out, "summary.json"))).toBe(true);
      } finally {
        await execa("umount", [dir]);
      }
    },
  );

  it("a run directory deleted mid-run: the run stops saying it cannot write there, not an internal error", async () => {
    const out = join(await tempDir(), "run");
    const running = runCli(["run", await spec(await tempDir()), "--out", out]);
    await firstRow(out);
    // Moved away in one step (a recursive rm races the run's own writes into raw/), then removed.
    const gone = `${out}.gone`;
    await rename(out, gone);
    const result = await running;
    await rm(gone, { recursive: true, force: true });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `benchspec: the run stopped: cannot write ${join(out, "results.ndjson")}: no such file or directory`,
    );
    expect(result.stderr).not.toContain("internal error");
  });
});
