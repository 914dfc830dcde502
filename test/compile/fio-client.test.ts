/**
 * `compile --target fio-client` for a host group of fio's servers, for real: two `fio --server` on loopback
 * ports stand for two hosts sharing a directory; the compiled fio-client/<group>.sh runs each repetition as
 * one fio client over both, and `benchspec merge` of its output makes one run of several hosts: per-host
 * rows, bytes summed, percentiles those of the hosts' pooled histograms; each host's files removed.
 */
import { readdir } from "node:fs/promises";
import { connect } from "node:net";
import { join } from "node:path";
import { execa, type ResultPromise } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeFile } from "node:fs/promises";
import { stringify } from "yaml";
import { freePorts } from "../../src/platform/ports.js";
import { readRows } from "../../src/results/ndjson.js";
import { decodeHistogram, latencyOfHistogram, mergeHistograms } from "../../src/rows/histogram.js";
import { ResultRowSchema, type ResultRow } from "../../src/rows/row.js";
import { tempDirs } from "../support/temp.js";
import { runCli } from "../support/cli.js";

const newDir = tempDirs("benchspec-fio-client-");
const servers: ResultPromise[] = [];
let ports: number[] = [];

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });

beforeAll(async () => {
  ports = await freePorts(["127.0.0.1", "127.0.0.1"]);
  for (const port of ports)
    servers.push(execa("fio", [`--server=ip:127.0.0.1,${port}`], { reject: false, stdio: "ignore" }));
  for (const port of ports) {
    const deadline = Date.now() + 10_000;
    while (!(await accepts(port))) {
      if (Date.now() > deadline) throw new Error(`fio --server on port ${port} did not listen`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
});
afterAll(async () => {
  for (const server of servers) server.kill("SIGTERM");
  await Promise.all(servers);
});

describe("compile --target fio-client", () => {
  it("runs each case on every fio server at once, and merge makes one run of both hosts", async () => {
    const work = await newDir();
    const shared = join(work, "shared");
    await execa("mkdir", ["-p", shared]);
    const hosts = ports.map((port) => `127.0.0.1:${port}`);
    const spec = join(work, "spec.yaml");
    await writeFile(
      spec,
      stringify({
        benchspec: 1,
        name: "fio-client",
        targets: { shared: { kind: "fs", path: shared } },
        hosts: { servers: { transport: "fio", hosts } },
        workloads: [
          {
            name: "r",
            engine: "fio",
            op: "randread",
            bs: "4KiB",
            size: "2MiB",
            ioengine: "psync",
            precondition: { passes: 1 },
            sample: "100ms",
            hosts: "servers",
            warmup: 1,
            repeat: 2,
          },
        ],
      }),
    );
    const compiled = join(work, "compiled");
    const compile = await runCli(["compile", spec, "--target", "fio-client", "-o", compiled]);
    expect(compile.code, compile.stderr).toBe(0);
    expect(compile.stderr + compile.stdout).toContain(
      `host group "servers" (fio, 2 hosts): fio-client/servers.sh OUT`,
    );
    const runner = join(compiled, "fio-client", "servers.sh");
    const check = await execa("shellcheck", ["-S", "style", runner], { reject: false });
    expect(check.exitCode, check.stdout).toBe(0);
    const out = join(work, "out");
    // OUT relative to where it is started; fio's client writes the servers' logs (sample) into OUT, not there.
    const script = await execa("bash", [runner, "out"], { reject: false, cwd: work });
    expect(script.exitCode, script.stderr).toBe(0);
    expect(script.stderr).toContain("r.shared.randread: preconditioning on 2 hosts");
    // fio removed what each host's jobs made.
    expect(await readdir(shared)).toEqual([]);
    expect((await readdir(work)).sort()).toEqual(["compiled", "out", "shared", "spec.yaml"]);
    expect((await readdir(join(out, "r.shared.randread"))).some((f) => /_bw\.\d+\.log\./.test(f))).toBe(true);

    const merged = join(work, "merged");
    const merge = await runCli(["merge", out, "-o", merged]);
    expect(merge.code, merge.stderr).toBe(0);
    const rows = readRows<ResultRow>(join(merged, "results.ndjson")).map((row) => ResultRowSchema.parse(row));
    expect(rows.map((row) => `${row.warmup ? "warm-up" : "repetition"} ${row.repetition}`).sort()).toEqual([
      "repetition 1",
      "repetition 2",
      "warm-up 1",
    ]);
    for (const row of rows) {
      expect(row.ok, row.error).toBe(true);
      expect(row.hosts!.map((h) => h.host)).toEqual(hosts);
      // Size-based: each host read its own 2 MiB file once.
      for (const host of row.hosts!) expect(host.bytes).toBe(2 * 2 ** 20);
      expect(row.bytes).toBe(4 * 2 ** 20);
      expect(row.ops).toBe(row.hosts!.reduce((sum, h) => sum + h.ops, 0));
      // The percentiles of both hosts' samples pooled, not an average of theirs.
      const pooled = latencyOfHistogram(mergeHistograms(row.hosts!.map((h) => h.histograms!.latency!)))!;
      expect(row.latency).toMatchObject({ p50: pooled.p50, p99: pooled.p99 });
      expect(decodeHistogram(row.histograms!.latency!).totalCount).toBe(row.ops);
    }
  }, 120_000);
});
