/**
 * Cases from three client hosts at once, for real: namespaced hosts with their own sshd, hostname, PID space
 * and storage (test/support/hosts.ts), reached with the real ssh client; a MinIO on their bridge serves the
 * S3 cases of all three. The coordinator is the real `bin/benchspec.js run`.
 */
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa, type ResultPromise } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import type { ResultRow } from "../../src/rows/row.js";
import { decodeHistogram } from "../../src/rows/histogram.js";
import type { TelemetryRow } from "../../src/rows/telemetry.js";
import { until } from "../support/poll.js";
import { SILENCE_LIMIT_MS } from "../../src/hosts/protocol.js";
import type { MinioServer } from "../../src/targets/s3/minio-server.js";
import { minioForHosts, startHosts, type Hosts } from "../support/hosts.js";
import { ROOT } from "../support/spec.js";
import { expectMerged } from "../support/merged.js";
import { last, startPrometheus } from "../support/prometheus.js";
import { freePort } from "../../src/platform/ports.js";

const BIN = join(ROOT, "bin", "benchspec.js");
const SECRET_ENV = "BS_TEST_SECRET_KEY";

let hosts: Hosts;
let minio: MinioServer;
let work: string;

/** A MinIO with the bucket `multihost`, on the hosts' network. */
const minioFor = (rig: Hosts) => minioForHosts(rig, "multihost");

beforeAll(async () => {
  hosts = await startHosts({ count: 3 });
  minio = await minioFor(hosts);
  work = await mkdtemp(join(tmpdir(), "benchspec-multihost-"));
});

afterAll(async () => {
  await minio?.stop();
  await hosts?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

const group = (names: string[]) => ({
  transport: "ssh",
  hosts: names,
  sshConfig: hosts.sshConfig,
  command: `node ${BIN}`,
  connectTimeout: "5s",
});

/** A fs target on each host's own storage, and the S3 store they share. */
const targets = (rig: Hosts, server: MinioServer) => ({
  local: { kind: "fs", path: rig.privatePath },
  store: {
    kind: "s3",
    endpoint: server.endpoint,
    bucket: "multihost",
    accessKey: "${env:BS_TEST_ACCESS_KEY}",
    secretKey: `\${env:${SECRET_ENV}}`,
    region: server.region,
    pathStyle: true,
  },
});

function spec(workloads: object[], names = ["h1", "h2", "h3"]) {
  return {
    benchspec: 1,
    name: "multihost",
    targets: targets(hosts, minio),
    hosts: { clients: group(names) },
    defaults: { hosts: "clients" },
    workloads,
  };
}

/** A fio random read on each host's own storage, for `duration` (long: to break something while it runs). */
const fioRead = (duration: string) => ({
  name: "long",
  target: "local",
  engine: "fio",
  op: "randread",
  size: "8MiB",
  bs: "4KiB",
  ioengine: "psync",
  duration,
});

/** dd, fio and S3 cases whose repetitions run on every host at once. */
const ALL_ENGINES = [
  { name: "dd", target: "local", engine: "dd", op: "write", bs: "1MiB", count: 16, repeat: 2 },
  { ...fioRead("1s"), name: "fio" },
  { name: "s3", target: "store", op: "put", size: "64KiB", objects: 48, concurrency: 4 },
];
const ALL_CASES = ["dd.local.write", "dd.local.write", "fio.local.randread", "s3.store.put"];

async function writeSpec(name: string, content: object) {
  const file = join(work, `${name}.yaml`);
  await writeFile(file, stringify(content));
  return file;
}

const env = () => ({ BS_TEST_ACCESS_KEY: minio.accessKey, [SECRET_ENV]: minio.secretKey, NO_COLOR: "1" });

function run(args: string[]): ResultPromise<{ reject: false; all: true; env: Record<string, string> }> {
  return execa("node", [BIN, "run", ...args], { reject: false, all: true, env: env() });
}

const rowsOf = (dir: string) =>
  readFileSync(join(dir, "results.ndjson"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as ResultRow);

/** The scratch directories the run recorded for `host`'s worker (leftovers.ndjson). */
const workerScratch = (dir: string, host: string) =>
  readFileSync(join(dir, "leftovers.ndjson"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { kind: string; path?: string; host?: string; target?: string })
    .filter(
      (l) => l.host === host && l.target === undefined && /\/benchspec-worker-[^/]+$/.test(l.path ?? ""),
    )
    .map((l) => l.path!);

/** SIGKILL, where a process that has already exited is as good as killed. */
function killGone(pid: number) {
  try {
    process.kill(pid, "SIGKILL");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
}

/** What still runs on the hosts that a run started there (their own sshd and holder processes aside). */
async function leftOnHosts() {
  const found = await Promise.all(
    hosts.hosts.map((host) => host.processes(/bin\/benchspec\.js|(^|\/)fio\b|(^|\/)dd\b/)),
  );
  return found.flat();
}

describe("a case from three hosts over ssh", () => {
  it("runs dd, fio and S3 on every host at once and merges exactly", async () => {
    const file = await writeSpec("all", spec(ALL_ENGINES));
    const dir = join(work, "all-run");
    // Sample the hosts' command lines while the run goes on: the secret must never be on one.
    const running = run([file, "-o", dir]);
    const seen: string[] = [];
    const sampler = setInterval(() => {
      void Promise.all(hosts.hosts.map((host) => host.processes(/./))).then((lists) =>
        seen.push(...lists.flat().map((p) => p.command)),
      );
    }, 200);
    const result = await running;
    clearInterval(sampler);
    expect(result.exitCode, result.all).toBe(0);
    expect(seen.some((command) => command.includes("worker --index"))).toBe(true);
    expect(seen.filter((command) => command.includes(minio.secretKey))).toEqual([]);

    const rows = rowsOf(dir).filter((row) => !row.warmup);
    expect(rows.map((row) => row.case).sort()).toEqual([...ALL_CASES].sort());
    for (const row of rows) expectMerged(row, ["h1", "h2", "h3"]);
    const dd = rows.find((row) => row.case === "dd.local.write")!;
    expect(dd.bytes).toBe(3 * 16 * 2 ** 20);
    const s3 = rows.find((row) => row.case === "s3.store.put")!;
    expect(s3.ops).toBe(3 * 48);
    // Each host's telemetry is its own: in its part of the row, and in its samples, on the row's clock.
    const telemetry = readFileSync(join(dir, "telemetry.ndjson"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as TelemetryRow);
    for (const row of rows) {
      for (const part of row.hosts!) {
        expect(part.telemetry, `${row.case} ${part.host}`).toBeDefined();
        const samples = telemetry.filter(
          (t) => t.case === row.case && t.repetition === row.repetition && !t.warmup && t.host === part.host,
        );
        expect(samples.length, `${row.case} ${part.host}`).toBeGreaterThan(0);
        expect(Math.max(...samples.map((t) => t.t))).toBeLessThan(row.seconds + 2);
      }
    }

    // Every host cleaned up after itself: no process, no owned directory, no object of the run.
    expect(await leftOnHosts()).toEqual([]);
    for (const host of hosts.hosts) {
      const listing = await host.exec("ls", ["-A", hosts.privatePath]);
      expect(listing.stdout.trim(), host.name).toBe("");
    }
    // Each host's worker said it released all it had made: clean reaches for none of it, says nothing.
    const cleaned = await execa("node", [BIN, "clean", dir], { reject: false, all: true, env: env() });
    expect([cleaned.exitCode, cleaned.all]).toEqual([0, ""]);
    // The secret is in no file of the run directory or of the hosts' logs.
    for (const root of [dir, hosts.dir]) {
      for (const name of await readdir(root, { recursive: true })) {
        const text = await readFile(join(root, name), "utf8").catch(() => "");
        expect(text.includes(minio.secretKey), join(root, name)).toBe(false);
      }
    }
  });

  it("live metrics of a run from three hosts, scraped by a real Prometheus: each host's series, pooled percentiles", async () => {
    const dir = join(work, "metrics");
    await mkdir(dir);
    const port = await freePort();
    const prometheus = await startPrometheus(dir, [`127.0.0.1:${port}`]);
    try {
      const file = await writeSpec("metrics", spec(ALL_ENGINES));
      const result = await run([
        file,
        "--out",
        join(dir, "run"),
        "--metrics",
        String(port),
        "--metrics-linger",
        "6s",
      ]);
      expect(result.exitCode, result.all).toBe(0);
      const rows = rowsOf(join(dir, "run")).filter((row) => !row.warmup);
      // Per host: each part of the merged rows, under its host's name.
      for (const host of ["h1", "h2", "h3"]) {
        const parts = rows.map((row) => row.hosts!.find((part) => part.host === host)!);
        expect(await prometheus.total(`sum(${last(`benchspec_operations_total{host="${host}"}`)})`)).toBe(
          parts.reduce((sum, part) => sum + part.ops, 0),
        );
        expect(await prometheus.total(`sum(${last(`benchspec_bytes_total{host="${host}"}`)})`)).toBe(
          parts.reduce((sum, part) => sum + part.bytes, 0),
        );
        const [busy] = await prometheus.query(last(`benchspec_host_cpu_busy_ratio{host="${host}"}`));
        expect(busy!.value).toBeGreaterThan(0);
      }
      // The hosts' buckets pooled give the merged row's p99 (the row pools their histograms) within a bucket.
      const s3 = rows.find((row) => row.case === "s3.store.put")!;
      const [p99] = await prometheus.query(
        `histogram_quantile(0.99, sum by (le) (${last('benchspec_latency_seconds_bucket{case="s3.store.put"}')}))`,
      );
      expect(p99!.value).toBeGreaterThan(s3.latency!.p99! / 2 ** 0.25 / 1.001);
      expect(p99!.value).toBeLessThan(s3.latency!.p99! * 2 ** 0.25 * 1.001);
      expect(
        await prometheus.total(`sum(${last('benchspec_latency_seconds_count{case="s3.store.put"}')})`),
      ).toBe(s3.ops);
    } finally {
      await prometheus.stop();
    }
  }, 240_000);

  it("an open loop's rate is the group's: each host keeps its share of the instants, the merged row adds up", async () => {
    const file = await writeSpec(
      "open",
      spec([
        {
          name: "open",
          target: "store",
          op: "put",
          size: "4KiB",
          objects: 16,
          concurrency: 4,
          rate: 150,
          duration: "2s",
        },
      ]),
    );
    const dir = join(work, "open-run");
    const result = await run([file, "-o", dir]);
    expect(result.exitCode, result.all).toBe(0);
    const [row] = rowsOf(dir);
    expect(row!.ok, row!.error).toBe(true);
    // The group's instants, n ÷ 150 s, dealt to the hosts in turn: 100 each within the 2 s, 300 in all.
    expect(row!.hosts!.map((part) => part.ops)).toEqual([100, 100, 100]);
    expect(row!.ops).toBe(300);
    expect(row!.schedule!.rate).toBeCloseTo(150, 9);
    // A host held up early (a loaded CI: 0.13 off seen once) catches up faster than its share meanwhile;
    // its lateness says so, and its pace is bounded only when it kept the schedule.
    expect(row!.schedule!.late.p50).toBeGreaterThanOrEqual(0);
    if (row!.schedule!.late.p99 < 0.05)
      expect(Math.abs(row!.schedule!.achieved / 150 - 1)).toBeLessThan(0.05);
    // Response and service times of all hosts' operations, pooled.
    expect(decodeHistogram(row!.histograms!.latency!).totalCount).toBe(300);
    expect(decodeHistogram(row!.histograms!.serviceTime!).totalCount).toBe(300);
    expect(row!.latency!.p50!).toBeGreaterThanOrEqual(row!.serviceTime!.p50! * 0.999);
  });

  it("fio's rate is the group's too: each host runs its jobs at its share (rate_iops of its own jobfile), the merged row adds up", async () => {
    const file = await writeSpec("fio-open", spec([{ ...fioRead("2s"), name: "paced", rate: 300, jobs: 2 }]));
    const dir = join(work, "fio-open-run");
    const result = await run([file, "-o", dir]);
    expect(result.exitCode, result.all).toBe(0);
    const [row] = rowsOf(dir);
    expect(row!.ok, row!.error).toBe(true);
    // 300 I/Os per second over three hosts of two jobs: rate_iops=50 per job, 100 per host.
    for (const part of row!.hosts!) expect(Math.abs(part.iops / 100 - 1), part.host).toBeLessThan(0.05);
    expect(Math.abs(row!.iops / 300 - 1)).toBeLessThan(0.05);
  });

  it("fails a case on an unreachable host at once, naming it, and goes on", async () => {
    const file = await writeSpec(
      "unreachable",
      spec(
        [{ name: "dd", target: "local", engine: "dd", op: "write", bs: "1MiB", count: 4 }],
        ["h1", "nowhere"],
      ),
    );
    const started = Date.now();
    const result = await run([file, "-o", join(work, "unreachable-run")]);
    expect(result.exitCode, result.all).toBe(1);
    expect(Date.now() - started).toBeLessThan(30_000);
    const [row] = rowsOf(join(work, "unreachable-run"));
    expect(row!.ok).toBe(false);
    expect(row!.error).toMatch(/host nowhere: /);
    expect(await leftOnHosts()).toEqual([]);
  });

  it("fails a case on a host without fio, or without benchspec, naming the host and why", async () => {
    // h3's worker sees a PATH without fio (the hosts share this machine's files, so fio is hidden, not gone).
    const hideFio = `sh -c 'case $(hostname) in h3) export PATH=/nonexistent BENCHSPEC_TOOLS_DIR=/nonexistent;; esac; exec "$0" "$@"' ${process.execPath} ${BIN}`;
    const noFio = await writeSpec("no-fio", {
      ...spec([{ ...fioRead("1s"), name: "short" }]),
      hosts: { clients: { ...group(["h1", "h2", "h3"]), command: hideFio } },
    });
    const started = Date.now();
    const result = await run([noFio, "-o", join(work, "no-fio-run")]);
    expect(result.exitCode, result.all).toBe(1);
    expect(Date.now() - started).toBeLessThan(60_000);
    const [row] = rowsOf(join(work, "no-fio-run"));
    expect(row!.ok).toBe(false);
    expect(row!.error).toMatch(/host h3: fio is not installed/);

    const noBenchspec = await writeSpec("no-benchspec", {
      ...spec(
        [{ name: "quick", target: "local", engine: "dd", op: "write", bs: "1MiB", count: 1 }],
        ["h1", "h2"],
      ),
      hosts: { clients: { ...group(["h1", "h2"]), command: "/nonexistent/benchspec" } },
    });
    const second = await run([noBenchspec, "-o", join(work, "no-benchspec-run")]);
    expect(second.exitCode, second.all).toBe(1);
    const [failed] = rowsOf(join(work, "no-benchspec-run"));
    expect(failed!.error).toMatch(/host h1: .*(not found|No such file)/);
    expect(await leftOnHosts()).toEqual([]);
  }, 120_000);

  it("fails the case naming a host whose worker is killed mid-case, stops the others; clean removes what the dead worker left", async () => {
    const file = await writeSpec("killed", spec([fioRead("20s")]));
    const running = run([file, "-o", join(work, "killed-run")]);
    const victim = hosts.host("h2");
    const workers = await until(async () => {
      const found = await victim.processes(/\bfio\b.*--output-format/);
      return found.length > 0 ? await victim.processes(/worker --index/) : undefined;
    });
    const started = Date.now();
    for (const worker of workers) process.kill(worker.pid, "SIGKILL");
    const result = await running;
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(result.exitCode, result.all).toBe(1);
    const [row] = rowsOf(join(work, "killed-run"));
    expect(row!.ok).toBe(false);
    expect(row!.error).toMatch(/host h2: .*the other hosts were stopped/);
    expect(await until(async () => ((await leftOnHosts()).length === 0 ? true : undefined))).toBe(true);
    // The killed worker could not remove its directories (its target's, its own scratch for the run's
    // artifacts and raw outputs); the run recorded both, and clean removes them there.
    expect((await victim.exec("ls", ["-A", hosts.privatePath])).stdout).toMatch(/^benchspec-.*-h2$/m);
    const scratch = workerScratch(join(work, "killed-run"), "h2");
    expect(scratch).toHaveLength(1);
    // The run's artifacts, sent and written at hello, before any case (a raw output exists only once its
    // tool has finished).
    expect((await victim.exec("ls", [scratch[0]!])).stdout).toMatch(/^fio$/m);
    const cleaned = await execa("node", [BIN, "clean", join(work, "killed-run")], {
      reject: false,
      all: true,
    });
    expect(cleaned.exitCode, cleaned.all).toBe(0);
    expect((await victim.exec("ls", ["-A", hosts.privatePath])).stdout.trim()).toBe("");
    expect((await victim.exec("test", ["-e", scratch[0]!])).exitCode).toBe(1);
  });

  it("fails the case naming a frozen host within the silence limit", async () => {
    const file = await writeSpec("frozen", spec([fioRead("40s")]));
    const running = run([file, "-o", join(work, "frozen-run")]);
    const victim = hosts.host("h3");
    const workers = await until(async () => {
      const found = await victim.processes(/\bfio\b.*--output-format/);
      return found.length > 0 ? await victim.processes(/worker --index/) : undefined;
    });
    const started = Date.now();
    for (const worker of workers) process.kill(worker.pid, "SIGSTOP");
    try {
      const result = await running;
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(result.exitCode, result.all).toBe(1);
      const [row] = rowsOf(join(work, "frozen-run"));
      expect(row!.error).toMatch(/host h3: no word from its worker/);
    } finally {
      for (const worker of workers) process.kill(worker.pid, "SIGCONT");
    }
    // Thawed, the worker finds its session gone and leaves, taking fio with it.
    expect(await until(async () => ((await leftOnHosts()).length === 0 ? true : undefined))).toBe(true);
  });

  it("Ctrl-C before the workers said hello ends the run within seconds, not the startup limit", async () => {
    // Workers slow to start (a download, a cold cache): each host's command sleeps before benchspec runs.
    const slow = {
      ...spec([fioRead("1s")]),
      hosts: { clients: { ...group(["h1", "h2", "h3"]), command: `sleep 60; node ${BIN}` } },
    };
    const file = await writeSpec("slow-hello", slow);
    const dir = join(work, "slow-hello-run");
    const running = run([file, "-o", dir]);
    await until(async () => ((await hosts.host("h1").processes(/sleep 60/)).length > 0 ? true : undefined));
    const interrupted = Date.now();
    running.kill("SIGINT");
    const result = await running;
    expect(result.exitCode, result.all).toBe(130);
    expect(Date.now() - interrupted).toBeLessThan(10_000);
    expect(rowsOf(dir)).toEqual([]);
    // The hosts' commands went with the run (not only the workers: these never started).
    expect(await until(async () => ((await leftOnHosts()).length === 0 ? true : undefined))).toBe(true);
  }, 60_000);

  it("Ctrl-C stops every host, exits 130, and --resume completes exactly the missing cases", async () => {
    const file = await writeSpec(
      "interrupt",
      spec([
        { name: "quick", target: "local", engine: "dd", op: "write", bs: "1MiB", count: 4 },
        fioRead("30s"),
      ]),
    );
    const dir = join(work, "interrupt-run");
    const running = run([file, "-o", dir]);
    await until(async () =>
      (await hosts.host("h1").processes(/\bfio\b.*--output-format/)).length > 0 ? true : undefined,
    );
    const interrupted = Date.now();
    running.kill("SIGINT");
    const result = await running;
    expect(result.exitCode, result.all).toBe(130);
    expect(Date.now() - interrupted).toBeLessThan(15_000);
    expect(await until(async () => ((await leftOnHosts()).length === 0 ? true : undefined))).toBe(true);
    expect(rowsOf(dir).map((row) => row.case)).toEqual(["quick.local.write"]);

    // The long case, shortened through nothing but the run's own settings, is what resume runs.
    const resumed = await execa("node", [BIN, "run", "--resume", dir], {
      reject: false,
      all: true,
      env: env(),
      timeout: 90_000,
    });
    expect(resumed.exitCode, resumed.all).toBe(0);
    expect(rowsOf(dir).map((row) => row.case)).toEqual(["quick.local.write", "long.local.randread"]);
  }, 120_000);

  it("benchspec clean removes over ssh what a killed run left on the hosts", async () => {
    const file = await writeSpec("killed-all", spec([fioRead("40s")]));
    const dir = join(work, "killed-all-run");
    const running = run([file, "-o", dir]);
    await until(async () =>
      (await Promise.all(hosts.hosts.map((host) => host.processes(/\bfio\b.*--output-format/)))).every(
        (found) => found.length > 0,
      )
        ? true
        : undefined,
    );
    // Killed outright, everywhere: the workers first (so none cleans up), then the coordinator. All found
    // before any is killed: a worker that outlived another's kill by a /proc scan was told to stop by the
    // coordinator and cleaned up (seen under load). A fio may already be gone when its turn comes (it dies
    // with its worker).
    const victims = (
      await Promise.all(hosts.hosts.map((host) => host.processes(/worker --index|\bfio\b/)))
    ).flat();
    for (const victim of victims) killGone(victim.pid);
    running.kill("SIGKILL");
    await running;
    const listing = async () =>
      Promise.all(
        hosts.hosts.map(async (host) => (await host.exec("ls", ["-A", hosts.privatePath])).stdout.trim()),
      );
    const listed = await listing();
    expect(
      listed.every((names) => /^benchspec-/.test(names)),
      `each host's ${hosts.privatePath}: ${JSON.stringify(listed)}`,
    ).toBe(true);
    const scratch = hosts.hosts.map((host) => workerScratch(dir, host.name));
    expect(scratch.map((paths) => paths.length)).toEqual([1, 1, 1]);
    const scratchLeft = () =>
      Promise.all(
        hosts.hosts.map(async (host, i) => (await host.exec("test", ["-e", scratch[i]![0]!])).exitCode),
      );
    expect(await scratchLeft()).toEqual([0, 0, 0]);

    const cleaned = await execa("node", [BIN, "clean", dir], { reject: false, all: true, env: env() });
    expect(cleaned.exitCode, cleaned.all).toBe(0);
    expect(await listing(), cleaned.all).toEqual(["", "", ""]);
    expect(await scratchLeft()).toEqual([1, 1, 1]);
    expect(readFileSync(join(dir, "leftovers.ndjson"), "utf8")).toBe("");
  }, 90_000);
});

/** A /proc file's text, or "" when the process is gone or keeps it from us. */
function readFileOr(file: string): string {
  try {
    return readFileSync(file, "latin1");
  } catch {
    return "";
  }
}

describe("a case from three Slurm nodes", () => {
  let cluster: Hosts;
  let store: MinioServer;
  beforeAll(async () => {
    cluster = await startHosts({ count: 3, slurm: true });
    store = await minioFor(cluster);
  });
  afterAll(async () => {
    await store?.stop();
    await cluster?.stop();
  });

  it("places one worker per node with srun and runs dd, fio and S3 on every node at once", async () => {
    const file = await writeSpec("slurm", {
      benchspec: 1,
      name: "slurm",
      targets: targets(cluster, store),
      hosts: { nodes: { transport: "slurm", nodes: 3, command: `node ${BIN}` } },
      defaults: { hosts: "nodes" },
      workloads: ALL_ENGINES,
    });
    const dir = join(work, "slurm-run");
    const running = execa("node", [BIN, "run", file, "-o", dir], {
      reject: false,
      all: true,
      env: {
        ...cluster.env,
        BS_TEST_ACCESS_KEY: store.accessKey,
        [SECRET_ENV]: store.secretKey,
        NO_COLOR: "1",
      },
    });
    // Sample every process on the nodes while the run goes on (srun exports its environment to each task):
    // the secret must be in none's environment or command line.
    const sampled = { workers: 0, leaks: [] as string[] };
    const sampler = setInterval(() => {
      void Promise.all(cluster.hosts.map((host) => host.processes(/./))).then((lists) => {
        for (const { pid, command } of lists.flat()) {
          if (command.includes("worker")) sampled.workers += 1;
          const environ = readFileOr(`/proc/${pid}/environ`);
          if (environ.includes(store.secretKey) || command.includes(store.secretKey))
            sampled.leaks.push(`${pid}: ${command}`);
        }
      });
    }, 200);
    const result = await running;
    clearInterval(sampler);
    expect(result.exitCode, result.all).toBe(0);
    expect(sampled.workers).toBeGreaterThan(0);
    expect(sampled.leaks).toEqual([]);
    const rows = rowsOf(dir).filter((row) => !row.warmup);
    expect(rows.map((row) => row.case).sort()).toEqual([...ALL_CASES].sort());
    // Named by the hosts their workers ran on: Slurm chose them.
    for (const row of rows) expectMerged(row, ["h1", "h2", "h3"]);
    expect(rows.find((row) => row.case === "dd.local.write")!.bytes).toBe(3 * 16 * 2 ** 20);
    const left = await Promise.all(cluster.hosts.map((host) => host.processes(/bin\/benchspec\.js/)));
    expect(left.flat()).toEqual([]);
  });

  it("kill -9 of benchspec: the nodes' workers stop within the silence limit, their leftovers named by node", async () => {
    const file = await writeSpec("slurm-killed", {
      benchspec: 1,
      name: "slurmkilled",
      targets: targets(cluster, store),
      hosts: { nodes: { transport: "slurm", nodes: 3, command: `node ${BIN}` } },
      defaults: { hosts: "nodes" },
      workloads: [fioRead("120s")],
    });
    const dir = join(work, "slurm-killed-run");
    const running = execa("node", [BIN, "run", file, "-o", dir], {
      reject: false,
      env: { ...cluster.env, BS_TEST_ACCESS_KEY: store.accessKey, [SECRET_ENV]: store.secretKey },
    });
    const onNodes = (pattern: RegExp) =>
      Promise.all(cluster.hosts.map((host) => host.processes(pattern))).then((lists) => lists.flat());
    try {
      await until(async () =>
        (await Promise.all(cluster.hosts.map((host) => host.processes(/\bfio\b.*--output-format/)))).every(
          (found) => found.length > 0,
        )
          ? true
          : undefined,
      );
      // Named by the node each is on, not "task N": that is where clean must go.
      expect(cluster.hosts.map((host) => workerScratch(dir, host.name).length)).toEqual([1, 1, 1]);
    } finally {
      running.kill("SIGKILL");
      await running;
    }
    const killed = Date.now();
    await until(async () =>
      (await onNodes(/worker|\bfio\b.*--output-format/)).length === 0 ? true : undefined,
    );
    expect(Date.now() - killed).toBeLessThan(SILENCE_LIMIT_MS + 15_000);
    // The workers cleaned up after themselves; clean finds the job gone and the nodes reachable.
    const cleaned = await execa("node", [BIN, "clean", dir], {
      reject: false,
      all: true,
      env: cluster.env,
      timeout: 60_000,
    });
    expect(cleaned.exitCode, cleaned.all).toBe(0);
    const listing = await Promise.all(
      cluster.hosts.map(async (host) => (await host.exec("ls", ["-A", cluster.privatePath])).stdout.trim()),
    );
    expect(listing).toEqual(["", "", ""]);
  }, 120_000);
});
