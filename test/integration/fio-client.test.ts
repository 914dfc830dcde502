/**
 * fio's own client/server as a host transport, for real: three namespaced hosts each running `fio --server`
 * on its address (test/support/hosts.ts), the real `bin/benchspec.js run` as the coordinator, its one
 * `fio --client` reaching all three servers over the hosts' bridge.
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { latencyOfHistogram, mergeHistograms } from "../../src/rows/histogram.js";
import type { ResultRow } from "../../src/rows/row.js";
import { startHosts, type Hosts } from "../support/hosts.js";
import { until } from "../support/poll.js";
import { ROOT } from "../support/spec.js";

const BIN = join(ROOT, "bin", "benchspec.js");
const PORT = 8765;
/** The group's connectTimeout, and how long a run refused by a server may take at most. */
const CONNECT_TIMEOUT_S = 3;
const UNREACHABLE_BOUND_MS = 30_000;
/** How long Ctrl-C may take to end the run (the coordinator gives hosts 10 s to clean up). */
const INTERRUPT_BOUND_MS = 15_000;

let hosts: Hosts;
let work: string;

beforeAll(async () => {
  hosts = await startHosts({ count: 3, fioServer: PORT });
  work = await mkdtemp(join(tmpdir(), "benchspec-fio-client-"));
});

afterAll(async () => {
  await hosts?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

const servers = () => hosts.hosts.map((host) => `${host.address}:${PORT}`);

/** Writes the spec and starts `benchspec run` on it: the running process, and its run directory. */
async function runSpec(name: string, workloads: object[], path = hosts.privatePath) {
  const file = join(work, `${name}.yaml`);
  await writeFile(
    file,
    stringify({
      benchspec: 1,
      name: "fio-client",
      targets: { local: { kind: "fs", path } },
      hosts: {
        servers: { transport: "fio", hosts: servers(), connectTimeout: `${CONNECT_TIMEOUT_S}s` },
      },
      defaults: { hosts: "servers" },
      workloads,
    }),
  );
  const dir = join(work, `${name}-run`);
  const running = execa("node", [BIN, "run", file, "-o", dir], {
    reject: false,
    all: true,
    env: { NO_COLOR: "1" },
  });
  return { running, dir };
}

const lines = <T>(file: string) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as T);

/** What each host's private storage holds. */
const storage = () =>
  Promise.all(hosts.hosts.map(async (host) => (await host.exec("ls", ["-A", hosts.privatePath])).stdout));

const randread = {
  name: "rr",
  target: "local",
  engine: "fio",
  op: "randread",
  size: "8MiB",
  bs: "4KiB",
  ioengine: "psync",
  duration: "1s",
  sample: "250ms",
  repeat: 2,
  precondition: { write: "seq", passes: 1 },
};

describe("a fio case on three fio servers", () => {
  it("runs on every server at once, with a row per host, summed bytes and pooled percentiles", async () => {
    // What lies on each host's own storage while the run goes on: the files its fio server made.
    const seen: string[][] = [[], [], []];
    const sampler = setInterval(() => {
      void storage().then((listings) => listings.forEach((listing, i) => seen[i]!.push(listing)));
    }, 200);
    const { running, dir } = await runSpec("all", [randread]);
    const result = await running.finally(() => clearInterval(sampler));
    expect(result.exitCode, result.all).toBe(0);
    seen.forEach((listings, i) =>
      expect(listings.join("\n"), `h${i + 1}`).toMatch(
        new RegExp(`benchspec-.*-h${i + 1}\\.benchspec\\.0\\.0`),
      ),
    );
    expect(result.all).toContain(`host group servers: ${servers().join(", ")}`);

    const rows = lines<ResultRow>(join(dir, "results.ndjson")).filter((row) => !row.warmup);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.ok, row.error).toBe(true);
      const parts = row.hosts!;
      expect(parts.map((part) => part.host)).toEqual(servers());
      // Each server did its own I/O, on its own storage: fio's stats of each, not a share of a total.
      for (const part of parts) {
        expect(part.ok).toBe(true);
        expect(part.bytes).toBeGreaterThan(0);
        expect(part.ops).toBe(part.bytes / 4096);
        expect(part.seconds).toBeGreaterThan(0.9);
        expect(part.seconds).toBeLessThan(1.5);
      }
      expect(row.bytes).toBe(parts.reduce((sum, part) => sum + part.bytes, 0));
      expect(row.ops).toBe(parts.reduce((sum, part) => sum + part.ops, 0));
      expect(row.seconds).toBe(Math.max(...parts.map((part) => part.seconds)));
      expect(row.throughput).toBeCloseTo(row.bytes / row.seconds, 0);
      // The hosts' json+ bins pooled: every operation counted once, percentiles of them all.
      const pooled = mergeHistograms(parts.map((part) => part.histograms!.latency!));
      expect(pooled.totalCount).toBe(row.ops);
      // The percentiles from the pooled bins; the mean exact, each host's weighted by its operations.
      const { mean, ...percentiles } = latencyOfHistogram(pooled)!;
      expect(row.latency).toEqual({ ...percentiles, mean: row.latency!.mean });
      const weighted = parts.reduce((sum, part) => sum + part.latency!.mean! * part.ops, 0) / row.ops;
      expect(row.latency!.mean).toBeCloseTo(weighted, 15);
      // fio's json+ bins are 1/64 of a power of two wide (FIO_IO_U_PLAT_BITS = 6): the bins' mean is within
      // half a bin, 0.8 %, of the exact one (0.13 % seen under the suite's load).
      expect(Math.abs(row.latency!.mean! - mean!) / mean!).toBeLessThan(0.008);
      const p99s = parts.map((part) => part.latency!.p99!);
      expect(row.latency!.p99).toBeGreaterThanOrEqual(Math.min(...p99s));
      expect(row.latency!.p99).toBeLessThanOrEqual(Math.max(...p99s) * 1.001);
    }
    // Each server's fio logs came back through the client: a series per host, and their sum.
    const points = lines<{ case: string; host?: string }>(join(dir, "timeseries.ndjson"));
    expect(new Set(points.map((point) => point.host))).toEqual(new Set([...servers(), undefined]));
    // fio removed what it laid out on every host.
    expect(await storage()).toEqual(["", "", ""]);
  });

  it("a rate is the group's: each server runs its share, the merged row adds up", async () => {
    const { running, dir } = await runSpec("paced", [
      { ...randread, precondition: undefined, sample: undefined, repeat: 1, duration: "2s", rate: 300 },
    ]);
    const result = await running;
    expect(result.exitCode, result.all).toBe(0);
    const [row] = lines<ResultRow>(join(dir, "results.ndjson")).filter((r) => !r.warmup);
    for (const part of row!.hosts!) expect(Math.abs(part.iops / 100 - 1), part.host).toBeLessThan(0.05);
    expect(Math.abs(row!.iops / 300 - 1)).toBeLessThan(0.05);
  });

  it("fails the part of a host whose target directory is missing, in fio's words, and not the others", async () => {
    const sub = join(hosts.privatePath, "sub");
    for (const name of ["h1", "h3"]) await hosts.host(name).exec("mkdir", [sub]);
    try {
      const { running, dir } = await runSpec(
        "missing-dir",
        [{ ...randread, precondition: undefined, repeat: 1 }],
        sub,
      );
      const result = await running;
      expect(result.exitCode, result.all).toBe(1);
      const [row] = lines<ResultRow>(join(dir, "results.ndjson")).filter((r) => !r.warmup);
      expect(row!.hosts!.map((part) => part.ok)).toEqual([true, false, true]);
      expect(row!.ok).toBe(false);
      expect(row!.error).toContain(
        `${hosts.host("h2").address}:${PORT}: fio reported nothing for this server; fio said: <h2> fio: ${sub} is not a directory`,
      );
    } finally {
      for (const name of ["h1", "h3"]) await hosts.host(name).exec("rm", ["-r", sub]);
    }
  });

  it("Ctrl-C stops the fio client and the servers' jobs, exits 130, and removes the files", async () => {
    const fioProcesses = () =>
      Promise.all(hosts.hosts.map(async (host) => (await host.processes(/fio --server/)).length));
    // The job processes of the tests before must be gone first: one still exiting (a loaded machine) would
    // pass for this run's jobs below, and the Ctrl-C would come before they started.
    expect(await until(async () => ((await fioProcesses()).every((n) => n === 1) ? true : undefined))).toBe(
      true,
    );
    const { running } = await runSpec("interrupt", [
      { ...randread, duration: "30s", precondition: undefined },
    ]);
    // fio's server forks a process per job: more than the server itself on every host once they run.
    await until(async () => ((await fioProcesses()).every((n) => n > 1) ? true : undefined));
    const interrupted = Date.now();
    running.kill("SIGINT");
    const result = await running;
    expect(result.exitCode, result.all).toBe(130);
    expect(Date.now() - interrupted).toBeLessThan(INTERRUPT_BOUND_MS);
    expect(await until(async () => ((await fioProcesses()).every((n) => n === 1) ? true : undefined))).toBe(
      true,
    );
    expect(await storage()).toEqual(["", "", ""]);
  });

  it("kill -9 of benchspec: the fio client's scratch here is on record, and clean removes it", async () => {
    const fioProcesses = () =>
      Promise.all(hosts.hosts.map(async (host) => (await host.processes(/fio --server/)).length));
    const { running, dir } = await runSpec("killed", [
      { ...randread, duration: "5s", precondition: undefined },
    ]);
    const scratch = () =>
      (existsSync(join(dir, "leftovers.ndjson"))
        ? lines<{ path?: string; host?: string }>(join(dir, "leftovers.ndjson"))
        : []
      )
        .filter((l) => l.host === undefined && /\/benchspec-fio-client-[^/]+$/.test(l.path ?? ""))
        .map((l) => l.path!);
    try {
      await until(async () => ((await fioProcesses()).every((n) => n > 1) ? true : undefined));
    } finally {
      running.kill("SIGKILL");
      await running;
    }
    const recorded = scratch();
    expect(recorded).toHaveLength(1);
    expect(existsSync(recorded[0]!)).toBe(true);
    const cleaned = await execa("node", [BIN, "clean", dir], { reject: false, all: true });
    expect(cleaned.exitCode, cleaned.all).toBe(0);
    expect(existsSync(recorded[0]!)).toBe(false);
    // The servers' jobs end with their duration (a killed client never told them): wait, for the next test.
    await until(async () => ((await fioProcesses()).every((n) => n === 1) ? true : undefined));
    // What they laid out stays (documented: clean has no way onto fio's hosts) — only the run's own files,
    // named with its host prefix — and is removed here, as the user would, so the next test starts clean.
    for (const [i, listing] of (await storage()).entries()) {
      for (const name of listing.split("\n").filter(Boolean))
        expect(name).toMatch(/\.benchspec-[^/]*-h\d+\./);
      await hosts.hosts[i]!.exec("sh", ["-c", `rm -f -- ${hosts.privatePath}/*.benchspec-*`]);
    }
    expect(await storage()).toEqual(["", "", ""]);
  });

  it("fails the case naming a server that is down, within its connect timeout, and leaves nothing", async () => {
    const [server] = await hosts.host("h2").processes(/fio --server/);
    process.kill(server!.pid, "SIGKILL");
    const h2 = `${hosts.host("h2").address}:${PORT}`;
    const started = Date.now();
    const { running, dir } = await runSpec("down", [randread]);
    const result = await running;
    expect(Date.now() - started).toBeLessThan(UNREACHABLE_BOUND_MS);
    expect(result.exitCode, result.all).toBe(1);
    const rows = lines<ResultRow>(join(dir, "results.ndjson"));
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.ok).toBe(false);
      expect(row.error).toBe(
        `host ${h2}: no fio server answers there (connect ECONNREFUSED ${h2}); start one with \`fio --server\``,
      );
    }
    expect(await storage()).toEqual(["", "", ""]);
  });
});
