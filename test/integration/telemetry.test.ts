/**
 * Host telemetry for real: `benchspec run` (bin/benchspec.js) on a loop device and a launched MinIO on this
 * machine, and on a namespaced host whose NIC (a veth) is shaped by tc; the series must be there, add up
 * to at least what the cases moved, lie within the repetition, and the saturation verdict must name the
 * resource that was the limit (a dd thread copying to memory, the shaped NIC).
 */
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ResultRow } from "../../src/rows/row.js";
import type { RunSummary } from "../../src/results/summary.js";
import type { MinioServer } from "../../src/targets/s3/minio-server.js";
import type { TelemetryRow } from "../../src/rows/telemetry.js";
import { minioForHosts, shapeEgress, startHosts, type Hosts } from "../support/hosts.js";
import { loopDevice } from "../support/loop.js";
import { ROOT } from "../support/spec.js";

const BIN = join(ROOT, "bin", "benchspec.js");
const MiB = 2 ** 20;

const readNdjson = <T>(file: string): T[] =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as T);

interface Run {
  rows: ResultRow[];
  telemetry: TelemetryRow[];
  summary: RunSummary;
}

const readRun = (out: string): Run => ({
  rows: readNdjson<ResultRow>(join(out, "results.ndjson")),
  telemetry: readNdjson<TelemetryRow>(join(out, "telemetry.ndjson")),
  summary: JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as RunSummary,
});

/** What a counter moved over a repetition: its rates × their intervals, summed (exact but for rounding: ±1 B). */
const moved = (rows: readonly TelemetryRow[], rate: (row: TelemetryRow) => number | undefined) =>
  rows.reduce((total, row) => total + (rate(row) ?? 0) * row.seconds, 0);

const samplesOf = (run: Run, row: ResultRow) =>
  run.telemetry.filter((t) => t.case === row.case && t.repetition === row.repetition && !t.warmup);

const caseOf = (run: Run, id: string) => run.summary.cases.find((c) => c.id === id)!;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "benchspec-telemetry-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

type Runner = (args: string[]) => Promise<{ exitCode?: number; stderr: unknown }>;

async function runSpec(
  name: string,
  spec: object,
  run: Runner = (args) => execa("node", args, { reject: false }),
) {
  const file = join(dir, `${name}.yaml`);
  await writeFile(file, stringify({ benchspec: 1, name, ...spec }));
  const out = join(dir, name);
  const result = await run([BIN, "run", file, "--out", out]);
  expect(result.exitCode, String(result.stderr)).toBe(0);
  return readRun(out);
}

describe("telemetry of a run on this machine", () => {
  it("has CPU, the device's and loopback's series, adding up to what the cases moved, within each repetition", async () => {
    const loop = await loopDevice(64);
    try {
      const run = await runSpec("series", {
        targets: {
          disk: { kind: "block", device: loop.device, destructive: true },
          store: { kind: "s3", launch: "minio" },
        },
        workloads: [
          {
            name: "disk",
            target: "disk",
            engine: "fio",
            op: "write",
            ioengine: "psync",
            size: "32MiB",
            bs: "256KiB",
            direct: true,
            repeat: 2,
            sample: "200ms",
          },
          { name: "store", target: "store", op: "put", size: "4MiB", objects: 8, concurrency: 4, repeat: 2 },
        ],
      });
      const device = loop.device.replace("/dev/", "");
      for (const row of run.rows.filter((r) => !r.warmup)) {
        const samples = samplesOf(run, row);
        expect(samples.length, row.case).toBeGreaterThan(0);
        for (const s of samples) {
          expect(s.cpu.user + s.cpu.system + s.cpu.iowait).toBeGreaterThan(0);
          expect(s.cpu.user + s.cpu.system + s.cpu.iowait).toBeLessThanOrEqual(1.0001);
          expect(s.procs.benchspec!.rss).toBeGreaterThan(10 * MiB);
          // On the repetition's clock: the sampler runs from just before it starts to just after it ends.
          expect(s.t).toBeGreaterThan(-0.5);
          expect(s.t).toBeLessThan(row.seconds + 2);
        }
        if (row.engine === "fio") {
          // Every byte fio wrote went through the loop device.
          expect(moved(samples, (s) => s.disk[device]?.write)).toBeGreaterThanOrEqual(row.bytes - 1);
          expect(row.telemetry!.disk[device]!.throughput.peak).toBeGreaterThan(0);
        } else {
          // The objects went to the launched MinIO over loopback (and back into it: lo's rx is every byte
          // sent on it), counted apart from any other interface.
          expect(moved(samples, (s) => s.net.lo?.rx)).toBeGreaterThanOrEqual(row.bytes - 1);
          expect(Object.keys(row.telemetry!.procs)).toContain("minio");
        }
      }
      const summary = caseOf(run, "disk.disk.write");
      expect(summary.telemetry).toHaveLength(1);
      expect(summary.telemetry![0]!.summary.seconds).toBeGreaterThan(0);
    } finally {
      await loop.detach();
    }
  });

  it("says a client thread that never rested was the limit (dd copying to memory)", async () => {
    const run = await runSpec("busy-thread", {
      targets: { shm: { kind: "fs", path: "/dev/shm" } },
      workloads: [
        { name: "w", engine: "dd", op: "write", bs: "1MiB", count: 4000, repeat: 2, sample: "100ms" },
      ],
    });
    const summary = caseOf(run, "w.shm.write");
    expect(summary.telemetry![0]!.saturated).toContainEqual(
      expect.stringMatching(/^client CPU: a thread of dd ran (9\d|100) % of the time/),
    );
    expect(summary.warnings).toContainEqual(expect.stringMatching(/^client-bound: .*a thread of dd/));
  });
});

describe("telemetry on a client host whose NIC is shaped", () => {
  let hosts: Hosts;
  let minio: MinioServer;
  beforeAll(async () => {
    hosts = await startHosts({ count: 1 });
    minio = await minioForHosts(hosts, "telemetry");
    // 50 Mbit/s out of h1's NIC: its uploads can go no faster, however busy the machine's cores are.
    await shapeEgress(hosts.host("h1"), { rate: "50mbit", burst: "64kb", latency: "100ms" });
  }, 120_000);
  afterAll(async () => {
    await minio?.stop();
    await hosts?.stop();
  });

  it("says a slow device was the limit and the client was not", async () => {
    // A loop device over a file that h1 serves through sshfs, behind h1's shaped NIC: every read crosses it,
    // so the device always has I/O in flight while fio waits.
    const mount = join(dir, "on-h1");
    await execa("mkdir", ["-p", mount]);
    await execa("sshfs", [
      "-F",
      hosts.sshConfig,
      `h1:${hosts.privatePath}`,
      mount,
      "-o",
      "cache=no,direct_io",
    ]);
    let device: string | undefined;
    try {
      await execa("dd", [
        `of=${join(mount, "disk.img")}`,
        "if=/dev/urandom",
        "bs=1M",
        "count=32",
        "status=none",
      ]);
      device = (
        await execa("losetup", ["--find", "--show", "--direct-io=on", join(mount, "disk.img")])
      ).stdout.trim();
      const run = await runSpec("slow-device", {
        targets: { disk: { kind: "block", device } },
        workloads: [
          {
            name: "w",
            engine: "fio",
            op: "randread",
            ioengine: "libaio",
            iodepth: 16,
            bs: "64KiB",
            direct: true,
            size: "32MiB",
            // Long enough that fio's lag from the gate's opening to its first I/O (which the row's window
            // does not see, fio 3.33 gives no job start) stays a small share of it on a loaded machine.
            duration: "8s",
            sample: "200ms",
          },
        ],
      });
      const summary = caseOf(run, "w.disk.randread");
      // What the test caused: the slow device saturated. Other resources of a busy machine (its own disk,
      // other work) may be named too; they are not this test's to assert.
      const telemetry = summary.telemetry![0]!;
      expect(telemetry.saturated, JSON.stringify(telemetry.summary.disk)).toContainEqual(
        expect.stringMatching(
          new RegExp(`^device: ${device.replace("/dev/", "")} had I/O in flight (9\\d|100) % of the time$`),
        ),
      );
      // The device's saturation is not the client's: no client-bound warning names it. (A warning that all
      // cores were busy may come from other test files loading this machine's two cores.)
      const clientBound = summary.warnings.filter((w) => w.startsWith("client-bound"));
      expect(clientBound.filter((w) => w.includes("device:") || w.includes("thread of fio"))).toEqual([]);
    } finally {
      if (device) await execa("losetup", ["-d", device], { reject: false });
      await execa("umount", [mount], { reject: false });
    }
  }, 120_000);

  it("counts the veth as the host's interface and names it saturated against its declared capacity", async () => {
    const spec = {
      targets: {
        store: {
          kind: "s3",
          endpoint: minio.endpoint,
          region: minio.region,
          bucket: "telemetry",
          pathStyle: true,
          accessKey: "${env:BS_ACCESS}",
          secretKey: "${env:BS_SECRET}",
        },
      },
      workloads: [{ name: "up", op: "put", size: "8MiB", objects: 8, concurrency: 8, repeat: 1, warmup: 0 }],
      report: { limits: [{ label: "shaped link", throughput: "50Mbit/s", interface: "eth0" }] },
    };
    const run = await runSpec("shaped", spec, (args) =>
      hosts
        .host("h1")
        .exec("env", [
          `BS_ACCESS=${minio.accessKey}`,
          `BS_SECRET=${minio.secretKey}`,
          process.execPath,
          ...args,
        ]),
    );
    for (const row of run.rows) {
      expect(moved(samplesOf(run, row), (s) => s.net.eth0?.tx)).toBeGreaterThanOrEqual(row.bytes - 1);
      // The host's own loopback carried none of it.
      expect(moved(samplesOf(run, row), (s) => s.net.lo?.tx)).toBeLessThan(row.bytes / 100);
    }
    const [h1] = caseOf(run, "up.store.put").telemetry!;
    expect(h1!.saturated).toContainEqual(
      expect.stringMatching(/^network: eth0 sent \d+ Mbit\/s, (9\d|1\d\d) % of shaped link \(50 Mbit\/s\)$/),
    );
    expect(caseOf(run, "up.store.put").warnings).toContainEqual(
      expect.stringMatching(/^client-bound: network: eth0/),
    );
  });
});
