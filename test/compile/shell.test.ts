/**
 * The compiled bash script, with the real tools: bash -n and shellcheck on every shipped spec, real runs
 * against temp directories (byte counts asserted, cleanup checked), hostile values, secrets, Ctrl-C, failures,
 * and S3/IPFS through the aws and ipfs CLIs against a launched MinIO and Kubo.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { CreateBucketCommand } from "@aws-sdk/client-s3";
import { execa } from "execa";
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { binPercentiles } from "../../src/engines/fio/results.js";
import { compilePlan } from "../../src/compile/compile.js";
import { launchKubo, type KuboNode } from "../../src/targets/ipfs/kubo-server.js";
import { writeArtifacts } from "../../src/compile/output.js";
import { launchMinio, type MinioServer } from "../../src/targets/s3/minio-server.js";
import { SHELL_SCRIPT_PATH } from "../../src/compile/shell/script.js";
import { targetEnvVar } from "../../src/emit/shell-words.js";
import type { Artifact } from "../../src/emit/types.js";
import { VERSION } from "../../src/cli/context.js";
import type { Plan } from "../../src/plan/types.js";
import { ResultRowSchema, type ResultRow } from "../../src/rows/row.js";
import { kuboBinary } from "../../src/platform/tools.js";
import { stringify } from "yaml";
import { loadSpec, validateText } from "../../src/engines/language.js";
import { loopDevice } from "../support/loop.js";
import { listObjects, listUploads, s3Client, waitFor } from "../engines/support.js";
import { diagnosticsOf, planOf, ROOT, specFiles } from "../support/spec.js";

const temps: string[] = [];
const tempDir = async (prefix = "benchspec-shell-") => {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
};
afterAll(() => Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true }))));

const compileAll = async (plan: Plan): Promise<Artifact[]> =>
  (await compilePlan(plan, ["fio", "shell", "sdk"], VERSION)).artifacts;

/** Compiles a plan into a fresh directory; returns the directory and the script's path. */
async function compileTo(plan: Plan): Promise<{ dir: string; script: string; artifacts: Artifact[] }> {
  const dir = await tempDir("benchspec-shell-out-");
  const artifacts = await compileAll(plan);
  await writeArtifacts(dir, artifacts);
  return { dir, script: join(dir, SHELL_SCRIPT_PATH), artifacts };
}

async function shellcheck(script: string, severity: "style" | "warning" = "style") {
  const syntax = await execa("bash", ["-n", script], { reject: false });
  expect(syntax.stderr, "bash -n").toBe("");
  expect(syntax.exitCode).toBe(0);
  const check = await execa("shellcheck", ["-S", severity, script], { reject: false });
  expect(check.stdout, `shellcheck -S ${severity}`).toBe("");
  expect(check.exitCode).toBe(0);
}

function rowsOf(stdout: string): ResultRow[] {
  return stdout
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => ResultRowSchema.parse(JSON.parse(line)));
}

/** Every file and directory below dir, relative. */
async function tree(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).map(String).sort();
}

const which = async (tool: string) =>
  (await execa("bash", ["-c", `command -v ${tool}`], { reject: false })).exitCode === 0;

describe("the script of every shipped spec", () => {
  for (const file of specFiles()) {
    it(`${basename(file)}: passes bash -n and shellcheck (style and up)`, async () => {
      const { plan } = await loadSpec(file);
      const { script } = await compileTo(plan!);
      await shellcheck(script);
    });
  }
});

describe("values written into the script as assignments", () => {
  it("a spec name with dashes (secret-hygiene) passes shellcheck -S warning (SC2100 was reported for an unquoted BS_SPEC)", async () => {
    const { plan } = validateText(
      "secret-hygiene.yaml",
      stringify({
        benchspec: 1,
        name: "secret-hygiene",
        targets: { scratch: { kind: "fs" } },
        workloads: [{ name: "w-1", engine: "dd", op: "write", bs: "1MiB", count: 1 }],
      }),
    );
    const { script } = await compileTo(plan!);
    await shellcheck(script, "warning");
  });

  it("an S3 region and bucket with dashes pass shellcheck -S warning (A[k]=us-east-1 read as arithmetic, SC2100)", async () => {
    const { plan } = validateText(
      "region.yaml",
      stringify({
        benchspec: 1,
        name: "region",
        targets: {
          store: { kind: "s3", endpoint: "http://127.0.0.1:9", region: "us-east-1", bucket: "my-bucket" },
        },
        workloads: [{ name: "w", op: "put", size: "1MiB" }],
      }),
    );
    const { script } = await compileTo(plan!);
    await shellcheck(script, "warning");
    expect(await readFile(script, "utf8")).toContain("BS_TREGION[store]='us-east-1'");
  });
});

// The script's bash parts as they are in src/: their shellcheck directives live in headers the script
// does not carry, so the compiled script's check does not stand in for this one.
describe("every .sh file under src/", () => {
  const src = join(ROOT, "src");
  const files = readdirSync(src, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".sh"))
    .sort();
  it("finds the runtime's and every shell engine's .sh files", async () => {
    const expected = [
      join("compile", "shell", "runtime-checks.sh"),
      join("compile", "shell", "runtime.sh"),
      ...["dd", "fio", "ipfs", "s3"].map((engine) => join("engines", engine, `${engine}.sh`)),
    ];
    expect(files).toEqual(expect.arrayContaining(expected));
  });
  for (const file of files) {
    it(`${file}: passes bash -n and shellcheck (warning and up)`, async () => {
      await shellcheck(join(src, file), "warning");
    });
  }
});

const RUN_SPEC = {
  benchspec: 1,
  name: "shell-run",
  description: "dd and fio through the compiled script",
  targets: { scratch: { kind: "fs" } },
  defaults: { repeat: 2 },
  workloads: [
    { name: "dd", engine: "dd", op: ["write", "read"], bs: "1MiB", count: 64, matrix: { parallel: [1, 3] } },
    { name: "rw", engine: "fio", op: "randwrite", ioengine: "psync", size: "64MiB", bs: "4KiB" },
    {
      name: "timed",
      engine: "fio",
      op: "randread",
      ioengine: "psync",
      size: "4MiB",
      bs: "4KiB",
      duration: "1s",
    },
  ],
};
/** The spec scaled down from the command line, as a user would try it. */
const RUN_SETS = ["dd.bs=64KiB", "dd.count=4", "dd.warmup=1", "rw.size=1MiB", "timed.repeat=1"];

describe("a real run of dd and fio against a temp dir", () => {
  let rows: ResultRow[];
  let result: { exitCode?: number; stderr: string };
  let target: string;
  let scratch: string;

  beforeAll(async () => {
    const plan = planOf(RUN_SPEC, RUN_SETS);
    const { script } = await compileTo(plan);
    target = await tempDir("benchspec-shell-target-");
    scratch = await tempDir("benchspec-shell-tmp-");
    await writeFile(join(target, "planted"), "the user's file");
    const run = await execa(script, [], {
      env: { [targetEnvVar("scratch")]: target, TMPDIR: scratch },
      reject: false,
      timeout: 120_000,
    });
    result = run;
    rows = rowsOf(run.stdout);
  }, 150_000);

  it("exits 0 and prints one valid row per case × repetition, warm-ups marked", async () => {
    expect(result.exitCode, result.stderr).toBe(0);
    // dd: 4 cases × (1 warm-up + 2 measured); rw: 2; timed: 1
    expect(rows).toHaveLength(4 * 3 + 2 + 1);
    expect(rows.every((row) => row.ok && row.source === "shell" && row.spec === "shell-run")).toBe(true);
    const dd = rows.filter((row) => row.engine === "dd");
    expect(dd.filter((row) => row.warmup).map((row) => row.repetition)).toEqual([1, 1, 1, 1]);
    expect(dd.filter((row) => !row.warmup).map((row) => row.repetition)).toEqual([1, 2, 1, 2, 1, 2, 1, 2]);
  });

  it("dd: parallel × bs × count bytes, each process's own bytes and seconds", async () => {
    for (const row of rows.filter((r) => r.engine === "dd")) {
      const parallel = row.params.parallel as number;
      expect([1, 3]).toContain(parallel);
      expect(row.bytes).toBe(parallel * 64 * 1024 * 4);
      expect(row.ops).toBe(parallel * 4);
      expect(row.jobs).toHaveLength(parallel);
      for (const job of row.jobs!) {
        expect(job.bytes).toBe(64 * 1024 * 4);
        expect(job.seconds).toBeGreaterThan(0);
        expect(job.seconds).toBeLessThanOrEqual(row.seconds + 0.01);
      }
      expect(row.throughput).toBeCloseTo(row.bytes / row.seconds, 0);
      expect(new Date(row.end).getTime()).toBeGreaterThanOrEqual(new Date(row.start).getTime());
    }
  });

  it("fio: the size of a size-based job, ios × bs of a time-based one, latency in seconds", async () => {
    const rw = rows.filter((row) => row.workload === "rw");
    expect(rw).toHaveLength(2);
    for (const row of rw) {
      expect(row.bytes).toBe(1024 * 1024);
      expect(row.ops).toBe(256);
      expect(row.latency?.mean).toBeGreaterThan(0);
      expect(row.latency?.mean).toBeLessThan(1);
      expect(row.latency!.p99!).toBeGreaterThanOrEqual(row.latency!.p50!);
    }
    const [timed] = rows.filter((row) => row.workload === "timed");
    expect(timed!.bytes).toBeGreaterThan(0);
    expect(timed!.bytes % 4096).toBe(0);
    expect(timed!.ops * 4096).toBe(timed!.bytes);
    expect(timed!.seconds).toBeGreaterThan(0.9);
    expect(timed!.seconds).toBeLessThan(1.5);
    expect(timed!.iops).toBeCloseTo(timed!.ops / timed!.seconds, 0);
    // Percentiles from fio's json+ bins, every operation in them, taken as benchspec run takes them.
    for (const row of [...rw, timed!]) {
      const bins = new Map(Object.entries(row.latencyBins!).map(([ns, n]) => [Number(ns), n]));
      expect([...bins.values()].reduce((a, b) => a + b, 0)).toBe(row.ops);
      expect(row.latency).toMatchObject(binPercentiles(bins));
    }
  });

  it("leaves the user's files and nothing else: its subdirectory and temp files are gone", async () => {
    expect(await tree(target)).toEqual(["planted"]);
    expect(await readFile(join(target, "planted"), "utf8")).toBe("the user's file");
    expect(await tree(scratch)).toEqual([]);
  });
});

describe("a target without a path", () => {
  it("runs in a fresh temp dir and removes it", async () => {
    const plan = planOf({
      benchspec: 1,
      name: "fresh",
      targets: { "scratch-1": { kind: "fs" } },
      workloads: [{ name: "w", engine: "dd", op: "read", bs: "4KiB", count: 8, data: "zero" }],
    });
    const { script } = await compileTo(plan);
    const scratch = await tempDir();
    const run = await execa(script, [], { env: { TMPDIR: scratch }, reject: false });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(rowsOf(run.stdout).map((row) => [row.ok, row.bytes])).toEqual([[true, 8 * 4096]]);
    expect(await tree(scratch)).toEqual([]);
  });
});

describe("failures", () => {
  it("a failed repetition prints ok:false with the error, the script goes on and exits 1", async () => {
    const plan = planOf({
      benchspec: 1,
      name: "failing",
      targets: { scratch: { kind: "fs" } },
      workloads: [
        { name: "f", engine: "fio", op: "randwrite", size: "1MiB", ioengine: "psync" },
        { name: "d", engine: "dd", op: "write", bs: "4KiB", count: 4 },
      ],
    });
    const { script } = await compileTo(plan);
    const bin = await tempDir();
    await writeFile(join(bin, "fio"), '#!/bin/sh\necho "fio: injected failure" >&2\nexit 1\n');
    await chmod(join(bin, "fio"), 0o755);
    const scratch = await tempDir();
    const run = await execa(script, [], {
      env: { PATH: `${bin}:${process.env.PATH}`, TMPDIR: scratch },
      reject: false,
    });
    expect(run.exitCode).toBe(1);
    const rows = rowsOf(run.stdout);
    expect(rows.map((row) => [row.workload, row.ok])).toEqual([
      ["f", false],
      ["d", true],
    ]);
    expect(rows[0]!.error).toContain("fio exited with status 1");
    expect(run.stderr).toContain("1 repetition(s) failed");
    expect(await tree(scratch)).toEqual([]);
  });

  it("a missing tool stops the script before anything runs, with exit status 127", async () => {
    const { script } = await compileTo(planOf(RUN_SPEC));
    const empty = await tempDir();
    const run = await execa("/bin/bash", [script], { env: { PATH: empty }, extendEnv: false, reject: false });
    expect(run.exitCode).toBe(127);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/missing required tools: .*\bdd\b.*\bfio\b/);
  });

  it("Ctrl-C stops the running tool, removes what the script created and exits 130", async () => {
    const plan = planOf({
      benchspec: 1,
      name: "interrupted",
      targets: { scratch: { kind: "fs" } },
      workloads: [
        { name: "f", engine: "fio", op: "randwrite", size: "4MiB", ioengine: "psync", duration: "60s" },
      ],
    });
    const { script } = await compileTo(plan);
    const target = await tempDir();
    const scratch = await tempDir();
    await writeFile(join(target, "planted"), "x");
    const child = execa(script, [], {
      env: { [targetEnvVar("scratch")]: target, TMPDIR: scratch },
      reject: false,
    });
    let stderr = "";
    await new Promise<void>((resolve) =>
      child.stderr!.on("data", (chunk: Buffer) => {
        stderr += String(chunk);
        if (stderr.includes("repetition 1")) setTimeout(resolve, 1500);
      }),
    );
    const started = Date.now();
    child.kill("SIGINT");
    const run = await child;
    expect(run.exitCode).toBe(130);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(await tree(target)).toEqual(["planted"]);
    expect(await tree(scratch)).toEqual([]);
  });
});

describe("a block device (a real loop device)", () => {
  let device: Awaited<ReturnType<typeof loopDevice>>;
  let loop: string;
  beforeAll(async () => {
    device = await loopDevice(32);
    loop = device.device;
  });
  afterAll(() => device?.detach());

  const blockPlan = () =>
    planOf({
      benchspec: 1,
      name: "block",
      targets: { disk: { kind: "block", device: "${env:BENCHSPEC_TEST_DEVICE}", destructive: true } },
      workloads: [
        { name: "dd", engine: "dd", op: ["write", "read"], bs: "1MiB", count: 4, parallel: 3, direct: true },
        { name: "f", engine: "fio", op: "randread", size: "2MiB", ioengine: "psync", direct: true },
        {
          name: "pre",
          engine: "fio",
          op: ["read", "randread"],
          size: "1MiB",
          repeat: 2,
          ioengine: "psync",
          direct: true,
          precondition: { write: "seq", passes: 2, bs: "256KiB" },
        },
      ],
    });

  it("dd and fio on the device: each dd process its own region, byte counts right", async () => {
    const { script } = await compileTo(blockPlan());
    const link = join(await tempDir(), "disk-link");
    await execa("ln", ["-s", loop, link]);
    const run = await execa(script, [], { env: { BENCHSPEC_TEST_DEVICE: link }, reject: false });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(rowsOf(run.stdout).map((row) => [row.case, row.ok, row.bytes, row.jobs?.length])).toEqual([
      ["dd.disk.write", true, 3 * 4 * 1024 * 1024, 3],
      ["dd.disk.read", true, 3 * 4 * 1024 * 1024, 3],
      ["f.disk.randread", true, 2 * 1024 * 1024, undefined],
      ["pre.disk.read", true, 1024 * 1024, undefined],
      ["pre.disk.read", true, 1024 * 1024, undefined],
      ["pre.disk.randread", true, 1024 * 1024, undefined],
      ["pre.disk.randread", true, 1024 * 1024, undefined],
    ]);
    // Each fio case ran its own section of the workload's jobfile; the workload preconditioned the target once.
    for (const pass of [1, 2])
      expect(run.stderr.split(`pre.disk.precondition-${pass}: (g=`).length - 1, `pass ${pass}`).toBe(1);
  });

  it("purges and preconditions once per workload and target, in that order, and idles before each repetition", async () => {
    const idle = 0.3;
    const { script } = await compileTo(
      planOf({
        benchspec: 1,
        name: "steps",
        targets: { disk: { kind: "block", device: "${env:BENCHSPEC_TEST_DEVICE}", destructive: true } },
        workloads: [
          {
            name: "pts",
            engine: "fio",
            op: "randread",
            bs: ["4KiB", "8KiB", "16KiB"],
            size: "1MiB",
            ioengine: "psync",
            direct: true,
            warmup: 1,
            purge: true,
            precondition: {},
            idle: `${idle * 1000}ms`,
          },
        ],
      }),
    );
    await shellcheck(script, "warning");
    const stat = () => {
      const fields = readFileSync(`/sys/block/${basename(loop)}/stat`, "utf8")
        .trim()
        .split(/\s+/)
        .map(Number);
      return { written: fields[6]!, discarded: fields[13]! };
    };
    const before = stat();
    const run = await execa(script, [], { env: { BENCHSPEC_TEST_DEVICE: loop }, reject: false });
    const after = stat();
    expect(run.exitCode, run.stderr).toBe(0);
    const rows = rowsOf(run.stdout);
    expect(rows.map((row) => [row.case, row.warmup, row.ok])).toEqual(
      ["4KiB", "8KiB", "16KiB"].flatMap((bs) => [
        [`pts.disk.randread.bs-${bs}`, true, true],
        [`pts.disk.randread.bs-${bs}`, false, true],
      ]),
    );
    // One discard of the whole 32MiB device, then the PTS default: 2 sequential passes over all of it.
    expect(after.discarded - before.discarded).toBe((32 * 2 ** 20) / 512);
    expect(after.written - before.written).toBe((2 * 32 * 2 ** 20) / 512);
    const log = run.stderr;
    expect(log.match(/purge: discarding/g)).toHaveLength(1);
    expect(log.match(/preconditioning \(2 pass/g)).toHaveLength(1);
    expect(log.indexOf("purge: discarding")).toBeLessThan(log.indexOf("preconditioning ("));
    expect(log.indexOf("preconditioning (")).toBeLessThan(log.indexOf("warm-up 1"));
    for (let i = 1; i < rows.length; i++) {
      expect(Date.parse(rows[i]!.start) - Date.parse(rows[i - 1]!.end), `row ${i}`).toBeGreaterThanOrEqual(
        idle * 1000,
      );
    }
  });

  it("refuses a mounted device, also through a symlink and BENCHSPEC_TARGET_<name>", async () => {
    const { script } = await compileTo(blockPlan());
    const dir = await device.mount();
    const link = join(await tempDir(), "disk-link");
    await execa("ln", ["-s", loop, link]);
    for (const env of [{ BENCHSPEC_TEST_DEVICE: link }, { [targetEnvVar("disk")]: loop }]) {
      const run = await execa(script, [], { env, reject: false });
      expect(run.exitCode).toBe(1);
      expect(run.stdout).toBe("");
      expect(run.stderr).toContain(`refusing ${loop}`);
    }
    await execa("umount", [dir]);
  });

  it("refuses a device that backs a loop device, mounted or not, and never writes to it", async () => {
    const { script } = await compileTo(blockPlan());
    // A loop device over the fixture's (`losetup --offset`), with a file system the script's writes would reach.
    const over = (await execa("losetup", ["--offset", "1M", "--find", "--show", loop])).stdout.trim();
    const mountpoint = join(await tempDir(), "over");
    try {
      await execa("mkfs.ext4", ["-q", over]);
      await execa("mkdir", ["-p", mountpoint]);
      await execa("mount", [over, mountpoint]);
      await writeFile(join(mountpoint, "data.txt"), "keep me");
      const env = { BENCHSPEC_TEST_DEVICE: loop };
      const mounted = await execa(script, [], { env, reject: false });
      expect(mounted.exitCode).toBe(1);
      expect(mounted.stdout).toBe("");
      expect(mounted.stderr).toContain(`refusing ${loop}: ${over} is mounted`);
      await execa("umount", [mountpoint]);
      const attached = await execa(script, [], { env, reject: false });
      expect(attached.exitCode).toBe(1);
      expect(attached.stdout).toBe("");
      expect(attached.stderr).toContain(`refusing ${loop}: loop device ${over} is attached over it`);
      await execa("e2fsck", ["-n", "-f", over]);
      await execa("mount", [over, mountpoint]);
      expect(await readFile(join(mountpoint, "data.txt"), "utf8")).toBe("keep me");
    } finally {
      await execa("umount", [mountpoint], { reject: false });
      await execa("losetup", ["-d", over], { reject: false });
    }
  });

  it("refuses a device holding a partition table or a file system until overwrite names it, through a symlink", async () => {
    const writePlan = (overwrite?: object) =>
      planOf({
        benchspec: 1,
        name: "block",
        targets: {
          disk: { kind: "block", device: "${env:BENCHSPEC_TEST_DEVICE}", destructive: true, overwrite },
        },
        workloads: [{ name: "dd", engine: "dd", op: "write", bs: "1MiB", count: 1, direct: true }],
      });
    for (const holding of ["gpt", "ext4"] as const) {
      const other = await loopDevice(16, { holding });
      try {
        const held = await other.probe();
        const uuid = holding === "ext4" ? held.UUID : held.PTUUID;
        const link = join(await tempDir(), "disk-link");
        await execa("ln", ["-s", other.device, link]);
        const env = { BENCHSPEC_TEST_DEVICE: link };
        const refused = await execa((await compileTo(writePlan())).script, [], { env, reject: false });
        expect(refused.exitCode).toBe(1);
        expect(refused.stdout).toBe("");
        expect(refused.stderr).toContain(`refusing ${other.device}: it holds a ${holding} (uuid ${uuid})`);
        expect(refused.stderr).toContain(`add overwrite: { signature: ${holding}, uuid: ${uuid} }`);
        expect(await other.probe()).toEqual(held);
        const acknowledged = await compileTo(writePlan({ signature: holding, uuid }));
        const run = await execa(acknowledged.script, [], { env, reject: false });
        expect(run.exitCode, run.stderr).toBe(0);
      } finally {
        await other.detach();
      }
    }
  });

  it("without destructive: true, a writing case refuses to run even if validation were bypassed", async () => {
    const plan = blockPlan();
    plan.targets.disk = { kind: "block", device: "/dev/null" };
    const script = (await compileAll(plan)).find((a) => a.path === SHELL_SCRIPT_PATH)!.content;
    expect(script).toContain("refusing to write to the block device of target disk");
    expect(script).not.toMatch(/bs_dd write/);
    // The "pre" workload's preconditioning, which would run before its cases, refuses too.
    expect(script).toContain("refusing to purge or precondition the block device of target disk");
    expect(script).not.toMatch(/bs_fio_precondition fio/);
  });
});

/** Everything the issue lists that could break out of a place in a script, a jobfile or a comment. */
const HOSTILE =
  "-x [global] ;a #b =c $ncpus exec_prerun=touch CANARY $(touch CANARY) `touch CANARY` 'sq' \"dq\" a:b ünï€";
const HOSTILE_TEXT = `${HOSTILE}\nexec_prerun=touch CANARY\n[global]\r\u2028; done`;

describe("hostile values", () => {
  it("are rejected at validation where they cannot be expressed, with a diagnostic", async () => {
    const codes = (spec: object) => diagnosticsOf(spec).map((d) => d.code);
    const fs = (path: string) => ({
      benchspec: 1,
      name: "h",
      targets: { scratch: { kind: "fs", path } },
      workloads: [{ name: "w", op: "read" }],
    });
    expect(codes(fs("/data/${HOME}"))).toContain("invalid-env-ref");
    expect(codes(fs("/data/${env:HOME"))).toContain("invalid-env-ref");
    expect(codes(fs("/data/a\nb"))).toContain("invalid-value");
    expect(codes({ ...fs("/tmp"), name: "a;b" })).toContain("invalid-name");
    expect(codes({ ...fs("/tmp"), targets: { "-x": { kind: "fs" } } })).not.toEqual([]);
    expect(codes({ ...fs("/tmp"), workloads: [{ name: "$(touch CANARY)", op: "read" }] })).toContain(
      "invalid-name",
    );
  });

  const hostileSpec = {
    benchspec: 1,
    name: "hostile",
    description: HOSTILE_TEXT,
    targets: {
      scratch: { kind: "fs", description: HOSTILE_TEXT, path: HOSTILE },
      disk: { kind: "block", description: HOSTILE_TEXT, device: `/dev/${HOSTILE}` },
      store: {
        kind: "s3",
        description: HOSTILE_TEXT,
        endpoint: `http://${HOSTILE}`,
        // A bucket name S3 would refuse is refused at validation now; the script still quotes what the
        // environment gives it.
        bucket: "${env:HOSTILE_BUCKET}",
        region: HOSTILE,
      },
      node: { kind: "ipfs", description: HOSTILE_TEXT, api: `http://${HOSTILE}` },
    },
    workloads: [
      {
        name: "dd",
        description: HOSTILE_TEXT,
        target: "scratch",
        engine: "dd",
        op: "write",
        bs: "4KiB",
        count: 2,
      },
      { name: "f", description: HOSTILE_TEXT, target: ["scratch", "disk"], engine: "fio", op: "randread" },
      { name: "o", description: HOSTILE_TEXT, target: "store", op: "put", size: "4KiB", objects: 1 },
      { name: "i", description: HOSTILE_TEXT, target: "node", op: "put", size: "4KiB", objects: 1 },
    ],
  };

  it("compile into a script and jobfiles that pass bash -n, shellcheck and fio --parse-only", async () => {
    const { dir, script, artifacts } = await compileTo(planOf(hostileSpec));
    await shellcheck(script);
    const jobfiles = artifacts.filter((a) => a.path.endsWith(".fio"));
    expect(jobfiles.length).toBeGreaterThan(0);
    const env = { BENCHSPEC_DIR: await tempDir(), BENCHSPEC_DEVICE: "/dev/null" };
    for (const jobfile of jobfiles) {
      const parse = await execa("fio", ["--parse-only", join(dir, jobfile.path)], { env, reject: false });
      expect(parse.exitCode, `${jobfile.path}: ${parse.stderr}`).toBe(0);
    }
    // The values are in the script only inside single quotes (or as comments on one line).
    const text = artifacts.find((a) => a.path === SHELL_SCRIPT_PATH)!.content;
    for (const line of text.split("\n").filter((l) => l.includes("touch CANARY"))) {
      expect(line.trimStart().startsWith("#") || line.includes("'")).toBe(true);
    }
  });

  it("running the script on hostile directory names never runs them, and cleans up", async () => {
    const root = await tempDir();
    const work = join(root, "work");
    const scratch = join(root, "tmp");
    await mkdir(scratch);
    // A relative path with a leading "-" (from the working directory) and one under an ${env:…} reference.
    await mkdir(join(work, HOSTILE), { recursive: true });
    await mkdir(join(root, "env", HOSTILE), { recursive: true });
    const plan = planOf({
      benchspec: 1,
      name: "hostile-run",
      description: HOSTILE_TEXT,
      targets: {
        rel: { kind: "fs", description: HOSTILE_TEXT, path: HOSTILE },
        "via-env": { kind: "fs", path: `\${env:HOSTILE_ROOT}/env/${HOSTILE}` },
      },
      workloads: [
        {
          name: "dd",
          description: HOSTILE_TEXT,
          target: ["rel", "via-env"],
          engine: "dd",
          op: "read",
          bs: "4KiB",
          count: 4,
        },
        {
          name: "f",
          target: ["rel", "via-env"],
          engine: "fio",
          op: "randwrite",
          size: "256KiB",
          ioengine: "psync",
        },
      ],
    });
    const { dir, script } = await compileTo(plan);
    const run = await execa(script, [], {
      cwd: work,
      env: { HOSTILE_ROOT: root, TMPDIR: scratch },
      reject: false,
    });
    expect(run.exitCode, run.stderr).toBe(0);
    const rows = rowsOf(run.stdout);
    expect(rows.map((row) => [row.case, row.ok, row.bytes])).toEqual([
      ["dd.rel.read", true, 4 * 4096],
      ["dd.via-env.read", true, 4 * 4096],
      ["f.rel.randwrite", true, 256 * 1024],
      ["f.via-env.randwrite", true, 256 * 1024],
    ]);
    const everything = [...(await tree(root)), ...(await tree(dir))];
    expect(everything.filter((path) => basename(path) === "CANARY")).toEqual([]);
    expect(existsSync(join(process.cwd(), "CANARY"))).toBe(false);
    expect(await tree(join(work, HOSTILE))).toEqual([]);
    expect(await tree(join(root, "env", HOSTILE))).toEqual([]);
    expect(await tree(scratch)).toEqual([]);
  });
});

describe("secrets", () => {
  it("a secret in the environment never appears in any compiled file; the script references the variable", async () => {
    const key = `SENTINEL-${randomBytes(12).toString("hex")}`;
    const secret = `SENTINEL-${randomBytes(12).toString("hex")}`;
    const literal = `LITERAL-${randomBytes(12).toString("hex")}`;
    process.env.BENCHSPEC_TEST_KEY = key;
    process.env.BENCHSPEC_TEST_SECRET = secret;
    try {
      const plan = planOf({
        benchspec: 1,
        name: "secrets",
        targets: {
          store: {
            kind: "s3",
            endpoint: "${env:BENCHSPEC_TEST_ENDPOINT}",
            accessKey: "${env:BENCHSPEC_TEST_KEY}",
            secretKey: "${env:BENCHSPEC_TEST_SECRET}",
          },
          other: { kind: "s3", endpoint: "http://127.0.0.1:9", accessKey: literal, secretKey: literal },
        },
        workloads: [{ name: "w", target: ["store", "other"], op: ["put", "get"], size: "4KiB" }],
      });
      const artifacts = await compileAll(plan);
      expect(artifacts.length).toBeGreaterThan(2);
      for (const artifact of artifacts) {
        for (const value of [key, secret, literal])
          expect(artifact.content, artifact.path).not.toContain(value);
      }
      const script = artifacts.find((a) => a.path === SHELL_SCRIPT_PATH)!.content;
      expect(script).toContain('export AWS_ACCESS_KEY_ID="${BENCHSPEC_TEST_KEY:?');
      expect(script).toContain('export AWS_SECRET_ACCESS_KEY="${BENCHSPEC_TEST_SECRET:?');
      expect(script).toContain('url="${BENCHSPEC_TEST_ENDPOINT:?');
    } finally {
      delete process.env.BENCHSPEC_TEST_KEY;
      delete process.env.BENCHSPEC_TEST_SECRET;
    }
  });

  it("refuses two targets that one environment variable would place (at validation)", async () => {
    const diagnostics = diagnosticsOf({
      benchspec: 1,
      name: "clash",
      targets: { "a-b": { kind: "fs" }, a_b: { kind: "fs" } },
      workloads: [{ name: "w", target: ["a-b", "a_b"], engine: "dd", op: "write" }],
    });
    expect(diagnostics).toMatchObject([
      { code: "duplicate-name", message: expect.stringContaining("BENCHSPEC_TARGET_a_b") },
    ]);
  });
});

// awscli and Kubo are installed by scripts/setup-tools.sh; a missing one fails here, loudly.
const kuboPath = kuboBinary();

/** The aws CLI's environment for a MinIO: its credentials and nothing from the user's configuration. */
const awsEnv = (server: MinioServer) => ({
  AWS_ACCESS_KEY_ID: server.accessKey,
  AWS_SECRET_ACCESS_KEY: server.secretKey,
  AWS_CONFIG_FILE: "/dev/null",
  AWS_SHARED_CREDENTIALS_FILE: "/dev/null",
});

describe("S3 and IPFS through the CLIs against launched servers", () => {
  let minio: MinioServer;
  let kubo: KuboNode;
  beforeAll(async () => {
    [minio, kubo] = await Promise.all([launchMinio(), launchKubo()]);
  });
  afterAll(async () => {
    await Promise.all([minio?.stop(), kubo?.stop()]);
  });

  it("puts, gets, adds and cats; the rows are right; what the run created is gone afterwards", async () => {
    const plan = planOf({
      benchspec: 1,
      name: "objects",
      targets: { store: { kind: "s3", launch: "minio" }, node: { kind: "ipfs", launch: "kubo" } },
      workloads: [
        { name: "obj", target: "store", op: ["put", "get"], size: "64KiB", objects: 2, concurrency: 2 },
        {
          name: "mp",
          target: "store",
          op: "put",
          size: "11MiB",
          objects: 1,
          concurrency: 1,
          multipart: { partSize: "5MiB", queue: 2 },
        },
        { name: "add", target: "node", op: ["put", "get"], size: "256KiB", objects: 2, concurrency: 2 },
      ],
    });
    const { script } = await compileTo(plan);
    const scratch = await tempDir();
    const ipfs = (args: string[]) => execa(kuboPath, [`--api=${kubo.apiMultiaddr}`, ...args]);
    const blocksBefore = (await ipfs(["refs", "local"])).stdout.split("\n").filter(Boolean).length;
    const env = {
      ...awsEnv(minio),
      PATH: `${dirname(kuboPath)}:${process.env.PATH}`,
      TMPDIR: scratch,
      [targetEnvVar("store")]: minio.endpoint,
      [targetEnvVar("node")]: kubo.api,
      BENCHSPEC_RUN_ID: "shell-test",
    };
    const run = await execa(script, [], { env, reject: false, timeout: 240_000 });
    expect(run.exitCode, run.stderr).toBe(0);
    const rows = rowsOf(run.stdout);
    expect(rows.map((row) => [row.case, row.ok, row.bytes, row.ops])).toEqual([
      ["obj.store.put", true, 2 * 65536, 2],
      ["obj.store.get", true, 2 * 65536, 2],
      ["mp.store.put", true, 11 * 1024 * 1024, 1],
      ["add.node.put", true, 2 * 262144, 2],
      ["add.node.get", true, 2 * 262144, 2],
    ]);
    for (const row of rows) {
      expect(row.latency?.p50).toBeGreaterThan(0);
      // One shared queue has no per-worker figures (benchspec run's object rows have none either).
      expect(row.jobs).toBeUndefined();
    }
    // The bucket was created by the run, emptied of exactly its keys, and removed again.
    const aws = await execa(
      "aws",
      [`--endpoint-url=${minio.endpoint}`, "--region=us-east-1", "s3api", "list-buckets", "--output=text"],
      { env, reject: false },
    );
    expect(aws.exitCode, aws.stderr).toBe(0);
    expect(aws.stdout).not.toContain("benchspec");
    // Kubo: nothing the run added is pinned or stored any more.
    const blocksAfter = (await ipfs(["refs", "local"])).stdout.split("\n").filter(Boolean).length;
    expect(blocksAfter).toBeLessThanOrEqual(blocksBefore);
    expect(await tree(scratch)).toEqual([]);
  }, 300_000);

  it("autotunes an S3 case's concurrency as benchspec run does: rounds until the gain stops, the knee's figures", async () => {
    const plan = planOf({
      benchspec: 1,
      name: "tuned",
      targets: { store: { kind: "s3", launch: "minio" } },
      workloads: [
        {
          name: "ramp",
          op: "put",
          size: "256KiB",
          objects: 24,
          autotune: { param: "concurrency", start: 1, factor: 2, max: 16, stopWhenGainBelow: 10 },
        },
      ],
    });
    const { script } = await compileTo(plan);
    const env = { ...awsEnv(minio), TMPDIR: await tempDir(), [targetEnvVar("store")]: minio.endpoint };
    const run = await execa(script, [], { env, reject: false, timeout: 240_000 });
    expect(run.exitCode, run.stderr).toBe(0);
    const [row] = rowsOf(run.stdout);
    const tune = row!.autotune!;
    expect(tune.param).toBe("concurrency");
    const values = tune.rounds.map((r) => r.value);
    expect([1, 2, 4, 8, 16].slice(0, values.length)).toEqual(values);
    for (const r of tune.rounds) {
      expect(r.bytes).toBe(24 * 256 * 1024);
      expect(r.throughput).toBeCloseTo(r.bytes / r.seconds, -1);
    }
    // The rounds stop at the first that gained less than 10 % (or at the last), and the knee is run's.
    const tp = tune.rounds.map((r) => r.throughput);
    const gained = (i: number) => tp[i]! >= tp[i - 1]! * 1.1;
    for (let i = 1; i < tp.length - 1; i++) expect(gained(i), `round ${i + 1} gained`).toBe(true);
    const stopped = tp.length > 1 && !gained(tp.length - 1);
    if (!stopped) expect(values.at(-1)).toBe(16);
    const knee = stopped ? tp.length - 2 : tp.length - 1;
    expect(tune.chosen).toBe(values[knee]);
    expect(row!.throughput).toBe(tune.rounds[knee]!.throughput);
    expect(row!.bytes).toBe(tune.rounds[knee]!.bytes);
    expect(row!.latency).toEqual(tune.rounds[knee]!.latency);
  }, 300_000);

  it("autotunes an IPFS add's concurrency, new data each round, and removes every round's blocks", async () => {
    const plan = planOf({
      benchspec: 1,
      name: "tuned-ipfs",
      targets: { node: { kind: "ipfs", launch: "kubo" } },
      workloads: [
        {
          name: "ramp",
          op: "put",
          size: "256KiB",
          objects: 12,
          autotune: { param: "concurrency", start: 1, factor: 2, max: 4, stopWhenGainBelow: 0 },
        },
      ],
    });
    const { script } = await compileTo(plan);
    const ipfs = (args: string[]) => execa(kuboPath, [`--api=${kubo.apiMultiaddr}`, ...args]);
    const blocksBefore = (await ipfs(["refs", "local"])).stdout.split("\n").filter(Boolean).sort();
    const env = {
      PATH: `${dirname(kuboPath)}:${process.env.PATH}`,
      TMPDIR: await tempDir(),
      [targetEnvVar("node")]: kubo.api,
    };
    const run = await execa(script, [], { env, reject: false, timeout: 240_000 });
    expect(run.exitCode, run.stderr).toBe(0);
    const [row] = rowsOf(run.stdout);
    expect(row!.autotune!.rounds.map((r) => r.value)).toEqual(
      [1, 2, 4].slice(0, row!.autotune!.rounds.length),
    );
    expect(row!.autotune!.rounds.every((r) => r.bytes === 12 * 256 * 1024)).toBe(true);
    expect(row!.throughput).toBe(
      row!.autotune!.rounds.find((r) => r.value === row!.autotune!.chosen)!.throughput,
    );
    // Each round added new data, all of it removed again: the node holds what it held before.
    expect((await ipfs(["refs", "local"])).stdout.split("\n").filter(Boolean).sort()).toEqual(blocksBefore);
  }, 300_000);

  it("times the store, not process start-up: one curl for all the objects, no CLI per object", async () => {
    const plan = planOf({
      benchspec: 1,
      name: "many",
      targets: { store: { kind: "s3", launch: "minio" }, node: { kind: "ipfs", launch: "kubo" } },
      workloads: [
        { name: "obj", target: "store", op: ["put", "get"], size: "16KiB", objects: 16, concurrency: 2 },
        {
          name: "mp",
          target: "store",
          op: "put",
          size: "11MiB",
          objects: 2,
          concurrency: 2,
          multipart: { partSize: "5MiB", queue: 2 },
        },
        { name: "add", target: "node", op: ["put", "get"], size: "16KiB", objects: 16, concurrency: 2 },
      ],
    });
    const { script } = await compileTo(plan);
    // A counting shim in front of every tool the script could time: each start appends the tool's name.
    const shims = await tempDir("benchspec-shims-");
    const log = join(shims, "starts.log");
    for (const tool of ["aws", "curl", "ipfs"]) {
      const real = tool === "ipfs" ? kuboPath : (await execa("bash", ["-c", `command -v ${tool}`])).stdout;
      await writeFile(join(shims, tool), `#!/bin/sh\necho ${tool} >>'${log}'\nexec '${real}' "$@"\n`);
      await chmod(join(shims, tool), 0o755);
    }
    const run = await execa(script, [], {
      env: {
        ...awsEnv(minio),
        PATH: `${shims}:${process.env.PATH}`,
        TMPDIR: await tempDir(),
        [targetEnvVar("store")]: minio.endpoint,
        [targetEnvVar("node")]: kubo.api,
        BENCHSPEC_RUN_ID: "shell-count",
      },
      reject: false,
      timeout: 240_000,
    });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(rowsOf(run.stdout).map((row) => [row.case, row.ok, row.bytes, row.ops])).toEqual([
      ["obj.store.put", true, 16 * 16384, 16],
      ["obj.store.get", true, 16 * 16384, 16],
      ["mp.store.put", true, 2 * 11 * 1024 * 1024, 2],
      ["add.node.put", true, 16 * 16384, 16],
      ["add.node.get", true, 16 * 16384, 16],
    ]);
    const starts = (await readFile(log, "utf8")).split("\n").filter(Boolean);
    const count = (tool: string) => starts.filter((t) => t === tool).length;
    // Timed: put 1 curl (one queue for both transfers in flight); get 1 for the untimed uploads, 1 timed;
    // the same for IPFS. Multipart: 3 per object (create, parts, complete), and one `curl --version`.
    expect(count("curl")).toBe(6 + 2 * 3 + 1);
    // Untimed: the bucket check and creation, one DeleteObjects per case, the multipart case's listing of
    // its uploads, the bucket's removal.
    expect(count("aws")).toBeLessThanOrEqual(8);
    // Untimed: the node check, then per repetition its pin listing and cleanup (refs, dag stat, dag put,
    // pin rm, block rm), batched, never per object.
    expect(count("ipfs")).toBeLessThanOrEqual(1 + 2 * 6);
  }, 300_000);

  it("the timed window holds no curl start-up: a curl that takes 2 s to start lengthens no row", async () => {
    const plan = planOf({
      benchspec: 1,
      name: "slow",
      targets: { store: { kind: "s3", launch: "minio" }, node: { kind: "ipfs", launch: "kubo" } },
      workloads: [
        { name: "obj", target: "store", op: ["put", "get"], size: "4KiB", objects: 8, concurrency: 4 },
        { name: "add", target: "node", op: ["put", "get"], size: "4KiB", objects: 8, concurrency: 4 },
      ],
    });
    const { script } = await compileTo(plan);
    // Each worker's curl is started before the start barrier releases, so the 2 s it sleeps are spent
    // before the window; a curl started after the release would put them into every row.
    const shims = await tempDir("benchspec-shims-");
    const real = (await execa("bash", ["-c", "command -v curl"])).stdout;
    await writeFile(join(shims, "curl"), `#!/bin/sh\nsleep 2\nexec '${real}' "$@"\n`);
    await chmod(join(shims, "curl"), 0o755);
    const run = await execa(script, [], {
      env: {
        ...awsEnv(minio),
        PATH: `${shims}:${dirname(kuboPath)}:${process.env.PATH}`,
        TMPDIR: await tempDir(),
        [targetEnvVar("store")]: minio.endpoint,
        [targetEnvVar("node")]: kubo.api,
        BENCHSPEC_RUN_ID: "shell-slow",
      },
      reject: false,
      timeout: 240_000,
    });
    expect(run.exitCode, run.stderr).toBe(0);
    const rows = rowsOf(run.stdout);
    expect(rows.map((row) => [row.case, row.ok, row.ops])).toEqual([
      ["obj.store.put", true, 8],
      ["obj.store.get", true, 8],
      ["add.node.put", true, 8],
      ["add.node.get", true, 8],
    ]);
    for (const row of rows) expect(row.seconds, row.case).toBeLessThan(1.5);
  }, 300_000);

  it("one shared queue: while one transfer is stalled, the other connection takes every remaining object", async () => {
    // Each proxy stalls the first object request of the run and lets it go once the 19 others have been
    // requested. Through one shared queue (2 in flight) the free connection takes all of them meanwhile;
    // with a fixed list per worker, the stalled worker's other objects would wait behind it (the stall then
    // ends only at the proxy's 30 s deadline, and the check fails).
    const objects = 20;
    const s3Proxy = await stallingProxy(
      minio.endpoint,
      (req) => req.method === "GET" && /\/obj-\d+$/.test(req.url ?? ""),
      objects - 1,
    );
    const ipfsProxy = await stallingProxy(
      kubo.api,
      (req) => (req.url ?? "").startsWith("/api/v0/cat?"),
      objects - 1,
    );
    try {
      const plan = planOf({
        benchspec: 1,
        name: "queue",
        targets: { store: { kind: "s3", launch: "minio" }, node: { kind: "ipfs", launch: "kubo" } },
        workloads: [
          { name: "obj", target: "store", op: "get", size: "4KiB", objects, concurrency: 2 },
          { name: "cat", target: "node", op: "get", size: "4KiB", objects, concurrency: 2 },
        ],
      });
      const { script } = await compileTo(plan);
      const run = await execa(script, [], {
        env: {
          ...awsEnv(minio),
          PATH: `${dirname(kuboPath)}:${process.env.PATH}`,
          TMPDIR: await tempDir(),
          [targetEnvVar("store")]: s3Proxy.url,
          [targetEnvVar("node")]: ipfsProxy.url,
          BENCHSPEC_RUN_ID: "shell-queue",
        },
        reject: false,
        timeout: 240_000,
      });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(rowsOf(run.stdout).map((row) => [row.case, row.ok, row.ops])).toEqual([
        ["obj.store.get", true, objects],
        ["cat.node.get", true, objects],
      ]);
      expect(s3Proxy.stalls).toEqual([{ othersMeanwhile: objects - 1, endedBy: "the others" }]);
      expect(ipfsProxy.stalls).toEqual([{ othersMeanwhile: objects - 1, endedBy: "the others" }]);
    } finally {
      await Promise.all([s3Proxy.close(), ipfsProxy.close()]);
    }
  }, 300_000);

  it("keeps `concurrency` requests in flight beyond the 300 one curl runs at once", async () => {
    // 301 objects at concurrency 301: the proxy holds the object requests until all 301 are in flight
    // together. One curl runs at most 300 (a single curl got 300 there and the proxy's deadline ended the
    // wait), so the script splits them over two curl processes.
    const n = 301;
    const s3Proxy = await gatheringProxy(
      minio.endpoint,
      (req) => req.method === "GET" && /\/obj-\d+$/.test(req.url ?? ""),
      n,
    );
    try {
      const plan = planOf({
        benchspec: 1,
        name: "wide",
        targets: { store: { kind: "s3", launch: "minio" } },
        workloads: [{ name: "obj", target: "store", op: "get", size: "1KiB", objects: n, concurrency: n }],
      });
      const { script } = await compileTo(plan);
      const run = await execa(script, [], {
        env: {
          ...awsEnv(minio),
          TMPDIR: await tempDir(),
          [targetEnvVar("store")]: s3Proxy.url,
          BENCHSPEC_RUN_ID: "shell-wide",
        },
        reject: false,
        timeout: 240_000,
      });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(rowsOf(run.stdout).map((row) => [row.case, row.ok, row.ops])).toEqual([
        ["obj.store.get", true, n],
      ]);
      expect(s3Proxy.result).toEqual({ gathered: n, endedBy: "the count" });
    } finally {
      await s3Proxy.close();
    }
  }, 300_000);

  it("a multipart upload that fails is aborted, and its row says which request failed and why", async () => {
    const client = s3Client(minio);
    try {
      await client.send(new CreateBucketCommand({ Bucket: "mpfail" }));
      const plan = planOf({
        benchspec: 1,
        name: "mpfail",
        targets: { store: { kind: "s3", launch: "minio", bucket: "mpfail" } },
        workloads: [
          {
            name: "mp",
            op: "put",
            size: "3MiB",
            objects: 2,
            concurrency: 2,
            multipart: { partSize: "5MiB", queue: 2 },
          },
        ],
      });
      const { script } = await compileTo(plan);
      // Parts of 1 MiB, below S3's 5 MiB minimum, which the spec cannot express: MinIO takes the parts and
      // refuses the completion (EntityTooSmall).
      const text = await readFile(script, "utf8");
      const call = "bs_s3 put 3145728 2 2 5242880 2 0 random";
      expect(text).toContain(call);
      await writeFile(script, text.replace(call, "bs_s3 put 3145728 2 2 1048576 2 0 random"));
      const run = await execa(script, [], {
        env: { ...awsEnv(minio), TMPDIR: await tempDir(), [targetEnvVar("store")]: minio.endpoint },
        reject: false,
        timeout: 240_000,
      });
      expect(run.exitCode, run.stderr).toBe(1);
      const [row] = rowsOf(run.stdout);
      expect(row).toMatchObject({ case: "mp.store.put", ok: false, ops: 0, bytes: 0 });
      expect(row!.error).toMatch(
        /^2 of 2 requests failed; worker \d: CompleteMultipartUpload of benchspec\/mpfail\/.*\/obj-\d: HTTP status 400, EntityTooSmall$/,
      );
      // The uploads were aborted and the objects never existed.
      expect(await listUploads(client, "mpfail")).toEqual([]);
      expect(await listObjects(client, "mpfail")).toEqual([]);
    } finally {
      client.destroy();
    }
  }, 300_000);

  it("kill -9 mid-run leaves the secret in no file, and it is on no curl command line", async () => {
    const plan = planOf({
      benchspec: 1,
      name: "nosecret",
      // A bucket of its own: what the killed script leaves in it (kill -9: no clean-up) is no other test's.
      targets: { store: { kind: "s3", launch: "minio", bucket: "nosecret" } },
      workloads: [{ name: "w", op: "put", size: "4KiB", objects: 400, concurrency: 4, duration: "20s" }],
    });
    const { script } = await compileTo(plan);
    const scratch = await tempDir();
    const run = execa(script, [], {
      env: { ...awsEnv(minio), TMPDIR: scratch, [targetEnvVar("store")]: minio.endpoint },
      reject: false,
      timeout: 120_000,
    });
    const filesHolding = async (text: string) => {
      const found: string[] = [];
      for (const entry of await readdir(scratch, { recursive: true, withFileTypes: true })) {
        if (!entry.isFile()) continue;
        const file = join(entry.parentPath, entry.name);
        if ((await readFile(file, "latin1").catch(() => "")).includes(text)) found.push(file);
      }
      return found;
    };
    // This script's curl processes: they run with its TMPDIR.
    const curlProcesses = () =>
      readdirSync("/proc").filter(
        (pid) =>
          /^\d+$/.test(pid) &&
          readProc(pid, "cmdline").startsWith("curl") &&
          readProc(pid, "environ").includes(`TMPDIR=${scratch} `),
      );
    try {
      // Running: the transfer lists are written and curl runs them.
      await waitFor(async () => curlProcesses().length > 0, 60_000, "curl running");
      // (Their environment holds what the user gave the script, AWS_SECRET_ACCESS_KEY: the aws CLI reads it.)
      for (const pid of curlProcesses()) expect(readProc(pid, "cmdline")).not.toContain(minio.secretKey);
      expect(await filesHolding(minio.secretKey)).toEqual([]);
    } finally {
      // Every process of the script, whatever group it made: those whose environment has this run's TMPDIR.
      for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p)))
        if (readProc(pid, "environ").includes(`TMPDIR=${scratch} `)) process.kill(Number(pid), "SIGKILL");
      await run;
    }
    expect(await filesHolding(minio.secretKey)).toEqual([]);
  }, 180_000);

  it("Ctrl-C mid multipart upload: the script aborts the uploads it started and removes its objects", async () => {
    const client = s3Client(minio);
    try {
      // The bucket is the user's: the script leaves it, so what remains in it can be looked at.
      await client.send(new CreateBucketCommand({ Bucket: "benchspec" }));
      const plan = planOf({
        benchspec: 1,
        name: "mpint",
        targets: { store: { kind: "s3", launch: "minio" } },
        workloads: [
          {
            name: "mp",
            op: "put",
            size: "40MiB",
            objects: 2,
            concurrency: 2,
            multipart: { partSize: "5MiB", queue: 1 },
          },
        ],
      });
      const { script } = await compileTo(plan);
      const run = execa(script, [], {
        env: { ...awsEnv(minio), TMPDIR: await tempDir(), [targetEnvVar("store")]: minio.endpoint },
        reject: false,
        timeout: 240_000,
      });
      await waitFor(async () => (await listUploads(client, "benchspec")).length > 0, 120_000, "an upload");
      run.kill("SIGINT");
      const result = await run;
      expect(result.exitCode, result.stderr).toBe(130);
      expect(await listUploads(client, "benchspec")).toEqual([]);
      expect(await listObjects(client, "benchspec")).toEqual([]);
    } finally {
      client.destroy();
    }
  }, 300_000);
});

it("the test environment has the tools the shell tests need", async () => {
  for (const tool of ["bash", "fio", "shellcheck", "awk", "shred"])
    expect(await which(tool), tool).toBe(true);
  expect(existsSync("/proc/mounts")).toBe(true);
});

/** A /proc file of a process as text (NULs as spaces); "" when it is gone. */
function readProc(pid: string, name: "cmdline" | "environ"): string {
  try {
    return readFileSync(`/proc/${pid}/${name}`, "latin1").replaceAll("\0", " ");
  } catch {
    return "";
  }
}

interface Stall {
  /** how many other matching requests arrived while the first was held */
  othersMeanwhile: number;
  endedBy: "the others" | "the deadline";
}

type Forward = () => void;

/**
 * An HTTP proxy to UPSTREAM (headers passed unchanged, so SigV4 signatures still hold); each request
 * matching IS_OP goes to HOLD with the function that forwards it, every other request straight through.
 */
async function holdingProxy(
  upstream: string,
  isOp: (req: IncomingMessage) => boolean,
  hold: (go: Forward) => void,
) {
  const target = new URL(upstream);
  const agent = new Agent({ keepAlive: true });
  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const out = request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
        agent,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on("error", () => res.destroy());
    req.pipe(out);
  };
  const server = createServer((req, res) => (isOp(req) ? hold(() => forward(req, res)) : forward(req, res)));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Holds the first op request (only that one) until OTHERS more have arrived, or 30 s have passed. */
async function stallingProxy(upstream: string, isOp: (req: IncomingMessage) => boolean, others: number) {
  const stalls: Stall[] = [];
  let stall: { stall: Stall; release: Forward } | undefined;
  const proxy = await holdingProxy(upstream, isOp, (go) => {
    if (stalls.length === 0) {
      const held: Stall = { othersMeanwhile: 0, endedBy: "the deadline" };
      stalls.push(held);
      const timer = setTimeout(() => release(), 30_000);
      const release = () => {
        clearTimeout(timer);
        stall = undefined;
        go();
      };
      stall = { stall: held, release };
      return;
    }
    go();
    if (!stall) return;
    stall.stall.othersMeanwhile++;
    if (stall.stall.othersMeanwhile === others) {
      stall.stall.endedBy = "the others";
      stall.release();
    }
  });
  return { ...proxy, stalls };
}

/**
 * Holds the op requests until COUNT of them are held at once (or 30 s have passed), then lets them all
 * go and every later one straight through: `gathered` is how many were held at once.
 */
async function gatheringProxy(upstream: string, isOp: (req: IncomingMessage) => boolean, count: number) {
  const result = { gathered: 0, endedBy: "the deadline" as "the count" | "the deadline" };
  let held: Forward[] | undefined = [];
  const release = () => {
    clearTimeout(timer);
    for (const go of held ?? []) go();
    held = undefined;
  };
  const timer = setTimeout(release, 30_000);
  const proxy = await holdingProxy(upstream, isOp, (go) => {
    if (!held) return go();
    held.push(go);
    result.gathered = held.length;
    if (held.length === count) {
      result.endedBy = "the count";
      release();
    }
  });
  return {
    ...proxy,
    result,
    close: () => {
      release();
      return proxy.close();
    },
  };
}
