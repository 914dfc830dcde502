/**
 * The bound rule of autotune against a store whose capacity is known: a client host whose link to MinIO
 * is shaped by `tc tbf` to 8 Mbit/s. Its PUTs of 64 KiB can go no faster than the link's bytes per second
 * over each PUT's bytes on the wire (measured on the link), and below that rate an open loop's response
 * time is about one PUT's time on the link; above it a queue builds for as long as the round lasts. The
 * autotune of the rate against `p99 ≤ 300 ms` must find that capacity within one step of its bisection.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MinioServer } from "../../src/targets/s3/minio-server.js";
import type { ResultRow } from "../../src/rows/row.js";
import { externalS3Target, s3Env, tempDirs, writeSpec } from "../engines/support.js";
import { minioForHosts, shapeEgress, startHosts, type Hosts, type TestHost } from "../support/hosts.js";

const BIN = join(import.meta.dirname, "..", "..", "bin", "benchspec.js");
const RATE_BITS = 8_000_000;
const SIZE = 64 * 1024;
const RESOLUTION = 5;

const temps = tempDirs("benchspec-knee-");

/** Runs benchspec on the host (its network namespace, behind its shaped link); the rows it wrote. */
async function runOn(host: Hosts["hosts"][number], server: MinioServer, spec: string, out: string) {
  const env = Object.entries(s3Env(server)).map(([key, value]) => `${key}=${value}`);
  const run = await host.exec("env", [...env, process.execPath, BIN, "run", spec, "-o", out]);
  expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
  return (await readFile(join(out, "results.ndjson"), "utf8"))
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as ResultRow);
}

/** Bytes the host's eth0 sent (/proc/net/dev is the reader's network namespace's: the host's). */
async function txBytes(host: TestHost): Promise<number> {
  const line = (await host.exec("cat", ["/proc/net/dev"])).stdout
    .split("\n")
    .find((l) => /^\s*eth0:/.test(l));
  // eth0: 8 receive fields, then the bytes sent.
  return Number(line!.split(":")[1]!.trim().split(/\s+/)[8]);
}

describe("autotune's bound rule on a tc tbf-shaped link (real MinIO)", () => {
  let hosts: Hosts;
  let minio: MinioServer;
  beforeAll(async () => {
    hosts = await startHosts({ count: 1 });
    minio = await minioForHosts(hosts, "knee");
    // A queue long enough that nothing is dropped: the link only delays (no retransmissions to muddle it).
    await shapeEgress(hosts.host("h1"), { rate: String(RATE_BITS), burst: "16kb", latency: "5s" });
  }, 120_000);
  afterAll(async () => {
    await minio?.stop();
    await hosts?.stop();
    await temps.removeAll();
  });

  // One retry: a round's p99 is about its slowest of 48 PUTs, so a stall of the two cores the whole suite
  // shares (a round of 8/s at 0.57 s once, under the Node 24 run's load) can fail a round the link allows.
  // A broken bound rule or ramp fails both tries.
  it(
    "finds the highest rate that keeps p99 ≤ 300 ms within one step of the link's capacity",
    { retry: 1, timeout: 300_000 },
    async () => {
      const h1 = hosts.host("h1");
      const work = await temps.make();
      // The bytes one PUT puts on the link (payload, HTTP, TCP/IP and Ethernet headers, its cleanup's share):
      // measured with a closed loop of one in flight, as the link's counter saw them.
      const calibration = await writeSpec(work, {
        name: "wire",
        targets: { store: externalS3Target("knee") },
        workloads: [{ name: "w", op: "put", size: "64KiB", objects: 20, concurrency: 1 }],
      });
      const before = await txBytes(h1);
      await runOn(h1, minio, calibration, join(work, "wire"));
      const perPut = ((await txBytes(h1)) - before) / 20;
      expect(perPut).toBeGreaterThan(SIZE);
      const capacity = RATE_BITS / 8 / perPut;

      const spec = await writeSpec(work, {
        name: "knee",
        targets: { store: externalS3Target("knee") },
        workloads: [
          {
            name: "w",
            op: "put",
            size: "64KiB",
            objects: 8,
            concurrency: 64,
            duration: "6s",
            autotune: {
              param: "rate",
              start: 4,
              factor: 2,
              max: 64,
              bound: { metric: "p99", atMost: "300ms" },
              resolution: `${RESOLUTION}%`,
            },
          },
        ],
      });
      const [row] = await runOn(h1, minio, spec, join(work, "knee"));
      const tune = row!.autotune!;
      const tried = tune.rounds.map(
        (r) => `${r.value}/s: p99 ${r.latency?.p99?.toFixed(3)} s ${r.met ? "met" : "missed"}`,
      );
      const context = `capacity ${capacity.toFixed(2)}/s (${perPut.toFixed(0)} B per PUT); ${tried.join("; ")}`;
      // The ramp 4, 8, 16: the first two met, 16 (above the capacity) missed; then bisection.
      expect(
        tune.rounds.slice(0, 3).map((r) => [r.value, r.met]),
        context,
      ).toEqual([
        [4, true],
        [8, true],
        [16, false],
      ]);
      const missed = Math.min(...tune.rounds.filter((r) => !r.met).map((r) => r.value));
      // The bisection ended with the rate chosen and the lowest rate that missed at most one step apart ...
      expect(missed / tune.chosen <= 1 + RESOLUTION / 100 || missed - tune.chosen <= 1, context).toBe(true);
      // ... and the capacity computed from the shaping lies within one step of the rate chosen.
      const step = 1 + RESOLUTION / 100;
      expect(tune.chosen, context).toBeGreaterThanOrEqual(Math.floor(capacity / step));
      expect(tune.chosen, context).toBeLessThanOrEqual(Math.ceil(capacity * step));
      expect(row!.params.rate).toEqual({ opsPerSecond: tune.chosen });
    },
  );
});
