/**
 * A workload's target steps on real loop devices and a real directory: purge and preconditioning once per
 * (workload, target), the purge's discard and its zero-writing fallback, idle before every repetition, and
 * the safety check applied to a purge as to any write.
 */
import { execa } from "execa";
import { readdirSync, readFileSync, realpathSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { readRows } from "../../src/results/ndjson.js";
import type { ResultRow } from "../../src/rows/row.js";
import { runCli } from "../support/cli.js";
import { loopDevice } from "../support/loop.js";

const temps: string[] = [];
const tempDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), "benchspec-steps-"));
  temps.push(dir);
  return dir;
};
afterAll(() => Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true }))));

async function run(spec: object) {
  const file = join(await tempDir(), "spec.yaml");
  await writeFile(file, stringify({ benchspec: 1, name: "t", ...spec }));
  const out = join(await tempDir(), "run");
  const result = await runCli(["run", file, "--out", out]);
  return { ...result, out, rows: readRows<ResultRow>(join(out, "results.ndjson")) };
}

/** /sys/block/<dev>/stat: sectors (512 B) written and discarded so far. */
function sectors(device: string) {
  const fields = readFileSync(`/sys/block/${basename(realpathSync(device))}/stat`, "utf8")
    .trim()
    .split(/\s+/)
    .map(Number);
  return { written: fields[6]!, discarded: fields[13]! };
}

const MiB = 2 ** 20;

/** Three read cases (nothing they do writes): whatever the device was written, the steps wrote. */
const readWorkload = (extra: object) => ({
  name: "w",
  engine: "fio",
  op: "randread",
  bs: ["4KiB", "8KiB", "16KiB"],
  size: "2MiB",
  repeat: 2,
  ioengine: "psync",
  direct: true,
  ...extra,
});

/** Fills the device with 0xff bytes, so a purge that left anything would show. */
const fill = (device: string, mib: number) =>
  execa("bash", [
    "-c",
    `head -c ${mib * MiB} /dev/zero | tr '\\0' '\\377' | dd of=${device} bs=1M oflag=direct status=none`,
  ]);

/** Whether every byte of the device reads as zero. */
async function allZero(device: string): Promise<boolean> {
  const { stdout } = await execa(
    "bash",
    ["-c", `cmp -s ${device} /dev/zero -n $(blockdev --getsize64 ${device}) && echo zero`],
    {
      reject: false,
    },
  );
  return stdout.trim() === "zero";
}

describe("purge and preconditioning on a block device (real loop devices)", () => {
  it("purge (discard) and the PTS default preconditioning run once for a workload of 3 cases", async () => {
    const loop = await loopDevice(32);
    try {
      expect(
        readFileSync(`/sys/block/${basename(loop.device)}/queue/discard_max_bytes`, "utf8").trim(),
      ).not.toBe("0");
      await fill(loop.device, 32);
      const before = sectors(loop.device);
      const result = await run({
        targets: { disk: { kind: "block", device: loop.device, destructive: true } },
        workloads: [readWorkload({ purge: true, precondition: {} })],
      });
      const after = sectors(loop.device);
      expect(result.code, result.stderr).toBe(0);
      expect(result.rows.map((r) => [r.case, r.ok])).toEqual(
        ["4KiB", "8KiB", "16KiB"].flatMap((bs) => [
          [`w.disk.randread.bs-${bs}`, true],
          [`w.disk.randread.bs-${bs}`, true],
        ]),
      );
      // One discard of the whole device, then 2 sequential passes: exactly 2× its capacity written.
      expect(after.discarded - before.discarded).toBe((32 * MiB) / 512);
      expect(after.written - before.written).toBe((2 * 32 * MiB) / 512);
      expect(readdirSync(join(result.out, "raw")).filter((f) => f.includes("precondition"))).toEqual([
        "w.disk.precondition.json",
      ]);
      const fio = JSON.parse(await readFile(join(result.out, "raw", "w.disk.precondition.json"), "utf8")) as {
        jobs: { jobname: string; "job options": { rw: string; bs: string }; write: { io_bytes: number } }[];
      };
      expect(
        fio.jobs.map((j) => [j.jobname, j["job options"].rw, j["job options"].bs, j.write.io_bytes]),
      ).toEqual([
        ["w.disk.precondition-1", "write", String(128 * 1024), 32 * MiB],
        ["w.disk.precondition-2", "write", String(128 * 1024), 32 * MiB],
      ]);
      expect(result.stderr.match(/purge: discarded/g)).toHaveLength(1);
    } finally {
      await loop.detach();
    }
  });

  it("purge empties the device; without discard support it writes zeros over it instead", async () => {
    for (const discard of [true, false]) {
      const loop = await loopDevice(16, { noDiscard: !discard });
      try {
        const limit = `/sys/block/${basename(loop.device)}/queue/discard_max_bytes`;
        expect(Number(readFileSync(limit, "utf8")) > 0).toBe(discard);
        await fill(loop.device, 16);
        expect(await allZero(loop.device)).toBe(false);
        const before = sectors(loop.device);
        const result = await run({
          targets: { disk: { kind: "block", device: loop.device, destructive: true } },
          workloads: [readWorkload({ purge: true })],
        });
        const after = sectors(loop.device);
        expect(result.code, result.stderr).toBe(0);
        expect(await allZero(loop.device)).toBe(true);
        if (discard) {
          expect(after.written - before.written).toBe(0);
          expect(result.stderr).toContain(`purge: discarded ${loop.device} (blkdiscard)`);
        } else {
          // The fallback wrote the whole device once, and discarded nothing.
          expect(after.discarded - before.discarded).toBe(0);
          expect(after.written - before.written).toBe((16 * MiB) / 512);
          expect(result.stderr).toContain(`purge: zeros written over ${loop.device} (no discard support)`);
        }
        expect(result.stderr.match(/ purge: /g)).toHaveLength(1);
      } finally {
        await loop.detach();
      }
    }
  });

  it("refuses to purge a mounted device, through a symlink, and a disk whose partition is mounted", async () => {
    const whole = await loopDevice(16);
    const partitioned = await loopDevice(16, { holding: "dos" });
    try {
      const mountpoint = await whole.mount();
      await writeFile(join(mountpoint, "data.txt"), "keep me");
      const link = join(await tempDir(), "by-id-disk");
      await execa("ln", ["-s", whole.device, link]);
      const partition = `${partitioned.device}p1`;
      await execa("mkfs.ext4", ["-q", partition]);
      const partMount = await tempDir();
      await execa("mount", [partition, partMount]);
      try {
        for (const [device, overwrite, why] of [
          [link, "ext4", "mounted on"],
          [whole.device, "ext4", "mounted on"],
          [partitioned.device, "dos", "mounted on"],
        ] as const) {
          const before = sectors(device);
          const result = await run({
            targets: {
              disk: { kind: "block", device, destructive: true, overwrite: { signature: overwrite } },
            },
            workloads: [readWorkload({ purge: true, bs: "4KiB", repeat: 1 })],
          });
          expect(result.code).toBe(1);
          expect(result.rows[0]).toMatchObject({ ok: false, error: expect.stringContaining(why) });
          expect(result.stderr).not.toContain("purge: ");
          const after = sectors(device);
          // Nothing discarded, nothing zeroed: the mounted ext4 writes a little of its own (lazy inode-table
          // init, journal), far from the whole device a zeroing purge writes.
          expect(after.discarded - before.discarded).toBe(0);
          expect(after.written - before.written).toBeLessThan((16 * MiB) / 512 / 4);
        }
        expect(await readFile(join(mountpoint, "data.txt"), "utf8")).toBe("keep me");
      } finally {
        await execa("umount", [partMount], { reject: false });
      }
    } finally {
      await whole.detach();
      await partitioned.detach();
    }
  });

  it("a purge on a read-only workload needs destructive: true, at validation", async () => {
    const result = await run({
      targets: { disk: { kind: "block", device: "/dev/loop-nonexistent" } },
      workloads: [readWorkload({ purge: true })],
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("[not-destructive]");
    expect(result.stderr).toContain("purge writes");
  });

  it("precondition must be the same for every case of a workload on a target", async () => {
    const result = await run({
      targets: { disk: { kind: "block", device: "/dev/loop-nonexistent", destructive: true } },
      workloads: [{ ...readWorkload({}), matrix: { precondition: [{ passes: 1 }, { passes: 2 }] } }],
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("[varies-within-workload]");
  });
});

describe("idle and steps on a directory", () => {
  it("idles before every repetition, warm-ups too, and preconditions once per workload", async () => {
    const dir = await tempDir();
    const idle = [0.4, 0.8];
    const result = await run({
      targets: { scratch: { kind: "fs", path: dir } },
      workloads: [
        {
          name: "hir",
          engine: "fio",
          op: "randwrite",
          size: "1MiB",
          bs: "4KiB",
          ioengine: "psync",
          idle: idle.map((s) => `${s * 1000}ms`),
          warmup: 1,
          repeat: 2,
          purge: true,
          precondition: { passes: 1 },
        },
      ],
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.rows.map((r) => [r.case, r.warmup, r.params.idle])).toEqual([
      ["hir.scratch.randwrite.idle-400ms", true, 0.4],
      ["hir.scratch.randwrite.idle-400ms", false, 0.4],
      ["hir.scratch.randwrite.idle-400ms", false, 0.4],
      ["hir.scratch.randwrite.idle-800ms", true, 0.8],
      ["hir.scratch.randwrite.idle-800ms", false, 0.8],
      ["hir.scratch.randwrite.idle-800ms", false, 0.8],
    ]);
    // Each repetition started at least its idle after the previous one ended.
    for (let i = 1; i < result.rows.length; i++) {
      const gap = (Date.parse(result.rows[i]!.start) - Date.parse(result.rows[i - 1]!.end)) / 1000;
      expect(gap, `${i}`).toBeGreaterThanOrEqual(Number(result.rows[i]!.params.idle));
    }
    expect(result.stderr.match(/ purge: emptied /g)).toHaveLength(1);
    expect(result.stderr.match(/preconditioning \(1 seq write pass/g)).toHaveLength(1);
    expect(readdirSync(join(result.out, "raw")).filter((f) => f.includes("precondition"))).toEqual([
      "hir.scratch.precondition.json",
    ]);
  });
});
