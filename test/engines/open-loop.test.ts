/**
 * Open-loop load (`rate`) against a real MinIO: operations started on schedule whatever the store answers,
 * the rate kept, and latency measured from each operation's due instant — a stall of the store shows in the
 * response times of every operation due during it, and in the service times only of those it caught in
 * flight (coordinated omission would hide the first).
 */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { decodeHistogram } from "../../src/rows/histogram.js";
import { behindSchedule } from "../../src/rows/schedule.js";
import type { RunSummary } from "../../src/results/summary.js";
import { runCli } from "../support/cli.js";
import {
  externalS3Target,
  listObjects,
  readJson,
  rowsOf,
  s3Env,
  sleep,
  startCli,
  tempDirs,
  waitFor,
  withMinio,
  writeSpec,
} from "./support.js";

const temps = tempDirs("benchspec-open-loop-");
afterAll(() => temps.removeAll());

/** How many of a histogram's values (seconds) are at least `seconds`. */
function countAtLeast(encoded: string, seconds: number): number {
  // The library's iterator over recorded values, left out of its type declarations.
  const { recordedValuesIterator: iterator } = decodeHistogram(encoded) as unknown as {
    recordedValuesIterator: {
      reset(): void;
      hasNext(): boolean;
      next(): { valueIteratedTo: number; countAtValueIteratedTo: number };
    };
  };
  iterator.reset();
  let count = 0;
  while (iterator.hasNext()) {
    const value = iterator.next();
    if (value.valueIteratedTo >= seconds * 1e9) count += value.countAtValueIteratedTo;
  }
  return count;
}

describe("open-loop load at a rate (s3, real MinIO)", () => {
  it("rate: 200 over 3 s starts 600 operations at 200 per second (± 2 % when no start was 20 ms late, ± 5 % or warned of as behind under the suite's load), in one thread and in two; a rate one worker cannot start is warned of", async () => {
    await withMinio(["open"], async (server) => {
      const work = await temps.make();
      const spec = await writeSpec(work, {
        name: "open",
        targets: { store: externalS3Target("open") },
        workloads: [
          {
            name: "w",
            op: "put",
            size: "4KiB",
            objects: 16,
            concurrency: 8,
            threads: [1, 2],
            rate: 200,
            duration: "3s",
          },
          // One operation in flight of a few milliseconds each cannot start 2,000 a second.
          { name: "over", op: "put", size: "4KiB", objects: 16, concurrency: 1, rate: 2000, duration: "1s" },
        ],
      });
      const out = join(work, "run");
      const result = await runCli(["run", spec, "--out", out], s3Env(server));
      expect(result.code, result.stderr).toBe(0);
      const rows = rowsOf(out).filter((r) => r.workload === "w");
      const summary = await readJson<RunSummary>(join(out, "summary.json"));
      expect(rows.map((r) => r.client?.threads).sort()).toEqual([1, 2]);
      for (const row of rows) {
        expect(row.ok, row.error).toBe(true);
        // Operation n is due at n × 5 ms: those due within the 3 s, exactly.
        expect(row.ops).toBe(600);
        expect(row.schedule!.rate).toBe(200);
        // The due instants are the schedule: 599 gaps of 5 ms.
        expect(row.schedule!.scheduled).toBeCloseTo(200, 6);
        // Never started ahead of it. Kept within 5 % (200 ± 0.1 % on an idle machine) — or, when the suite's
        // load on two cores starved the client (16 % behind seen once), said so: the case is warned of. A
        // client held up early that caught up (its lateness says so) started faster than 200/s meanwhile
        // (214/s over the run seen once in CI): its pace is not bounded by the rate, its lateness is.
        expect(row.schedule!.late.p50).toBeGreaterThanOrEqual(0);
        // Where nothing held the client up (no start 20 ms late: most runs, and every idle one), 200 ± 2 %.
        if (row.schedule!.late.max < 0.02)
          expect(Math.abs(row.schedule!.achieved / 200 - 1)).toBeLessThan(0.02);
        else if (row.schedule!.late.p99 < 0.05) expect(row.schedule!.achieved).toBeLessThan(200 * 1.05);
        if (behindSchedule(row.schedule!)) {
          const figures = summary.cases.find((c) => c.id === row.case)!;
          expect(figures.warnings.join("\n")).toMatch(/behind schedule in 1 of 1 repetitions/);
        } else expect(row.schedule!.achieved).toBeGreaterThan(200 * 0.95);
        // (Not iops: ops ÷ seconds ends at the last operation's end, which a loaded machine delays.)
        // Response time ≥ service time, operation by operation: so at every percentile.
        for (const p of ["p50", "p99"] as const)
          expect(row.latency![p]!).toBeGreaterThanOrEqual(row.serviceTime![p]! * 0.999);
        expect(decodeHistogram(row.histograms!.serviceTime!).totalCount).toBe(600);
      }
      const [over] = rowsOf(out).filter((r) => r.workload === "over");
      expect(over!.schedule!.achieved).toBeLessThan(2000 * 0.95);
      // Said once, for that case alone.
      const said = `${result.stdout}${result.stderr}`;
      expect(said.match(/behind schedule in 1 of 1 repetitions/g)).toHaveLength(
        1 + rows.filter((row) => behindSchedule(row.schedule!)).length,
      );
      expect(said).toMatch(/over\.store\.put[^\n]*\n(\s+warning:[^\n]*\n)*\s+warning: behind schedule/);
    });
  }, 120_000);

  it("a 0.5 s stall of the store: the response times of the operations due during it include it, their service times do not", async () => {
    await withMinio(["stall"], async (server, client) => {
      const work = await temps.make();
      const rate = 200;
      const concurrency = 4;
      const spec = await writeSpec(work, {
        name: "stall",
        targets: { store: externalS3Target("stall", { keep: true }) },
        workloads: [{ name: "w", op: "put", size: "4KiB", objects: 16, concurrency, rate, duration: "4s" }],
      });
      const out = join(work, "run");
      const running = startCli(["run", spec, "--out", out], s3Env(server));
      await waitFor(async () => (await listObjects(client, "stall")).length > 0, 30_000, "the first puts");
      await sleep(1_000);
      process.kill(-server.pid, "SIGSTOP");
      const stopped = Date.now();
      await sleep(500);
      process.kill(-server.pid, "SIGCONT");
      const resumed = Date.now();
      const result = await running;
      expect(result.exitCode, result.stderr).toBe(0);
      const [row] = rowsOf(out);
      expect(row!.ok, row!.error).toBe(true);
      // From the schedule: an operation due at t during the stall waits at least until the resume, so at
      // least (resumed − x − stopped) × rate operations have a response time of x or more, for every x
      // below the stall — and not a service time of x or more, but for the few the stall caught in flight
      // (one per worker). Other slow operations (a loaded machine) count in both: the difference is the
      // stall's.
      for (const x of [0.1, 0.2, 0.3, 0.4]) {
        const due = Math.floor(((resumed - stopped) / 1000 - x) * rate);
        const responses = countAtLeast(row!.histograms!.latency!, x);
        const services = countAtLeast(row!.histograms!.serviceTime!, x);
        expect(responses, `responses ≥ ${x} s`).toBeGreaterThanOrEqual(due - 3);
        expect(responses - services, `responses − services ≥ ${x} s`).toBeGreaterThanOrEqual(
          due - concurrency - 3,
        );
      }
      expect(countAtLeast(row!.histograms!.serviceTime!, 0.2)).toBeGreaterThanOrEqual(1);
      expect(row!.latency!.p99!).toBeGreaterThan(0.2);
      // The operations due during the stall started late, and the row says how late.
      expect(row!.schedule!.late.max).toBeGreaterThan(0.2);
    });
  }, 120_000);
});

describe("open-loop load at a rate (ipfs, a launched Kubo)", () => {
  it("rate: 50 adds 150 files at 50 per second, response time from the due instant, service time beside it", async () => {
    const work = await temps.make();
    const spec = await writeSpec(work, {
      name: "open-ipfs",
      targets: { node: { kind: "ipfs", launch: "kubo" } },
      workloads: [
        // IPFS has no duration: its objects are its operations, here due over 3 s.
        { name: "w", op: "put", size: "4KiB", objects: 150, concurrency: 4, rate: 50 },
      ],
    });
    const out = join(work, "run");
    const result = await runCli(["run", spec, "--out", out], {});
    expect(result.code, result.stderr).toBe(0);
    const [row] = rowsOf(out);
    expect(row!.ok, row!.error).toBe(true);
    // Operation n due at n × 20 ms: every one run.
    expect(row!.ops).toBe(150);
    expect(row!.schedule!.rate).toBe(50);
    expect(row!.schedule!.scheduled).toBeCloseTo(50, 6);
    expect(row!.schedule!.late.p50).toBeGreaterThanOrEqual(0);
    // As for S3 above: 50 ± 2 % where no start was 20 ms late, else said or at most 5 % fast.
    if (row!.schedule!.late.max < 0.02) expect(Math.abs(row!.schedule!.achieved / 50 - 1)).toBeLessThan(0.02);
    else if (!behindSchedule(row!.schedule!)) expect(row!.schedule!.achieved).toBeGreaterThan(50 * 0.95);
    for (const p of ["p50", "p99"] as const)
      expect(row!.latency![p]!).toBeGreaterThanOrEqual(row!.serviceTime![p]! * 0.999);
    expect(decodeHistogram(row!.histograms!.serviceTime!).totalCount).toBe(150);
    expect(decodeHistogram(row!.histograms!.latency!).totalCount).toBe(150);
  }, 120_000);
});

describe("open-loop load at a rate (fio, its own rate limit)", () => {
  it("rate in I/Os and in bytes per second, split over jobs and over reads and writes, is what fio measures", async () => {
    const work = await temps.make();
    const io = { engine: "fio", size: "8MiB", bs: "4KiB", ioengine: "psync", duration: "3s" };
    const spec = await writeSpec(work, {
      name: "fio-rate",
      targets: { d: { kind: "fs", path: work } },
      workloads: [
        { name: "r", op: "randread", jobs: 2, rate: 300, ...io },
        { name: "m", op: "randrw", read: 70, rate: 200, arrivals: "poisson", ...io },
        { name: "b", op: "write", rate: "4MiB/s", ...io, bs: "64KiB" },
      ],
    });
    const out = join(work, "run");
    const result = await runCli(["run", spec, "--out", out], {});
    expect(result.code, result.stderr).toBe(0);
    const [r, m, b] = rowsOf(out);
    expect(Math.abs(r!.iops / 300 - 1)).toBeLessThan(0.02);
    // Poisson arrivals over 3 s: 600 of them, whose count varies by about 4 %.
    expect(Math.abs(m!.iops / 200 - 1)).toBeLessThan(0.1);
    expect(Math.abs(b!.throughput / (4 * 2 ** 20) - 1)).toBeLessThan(0.02);
  }, 60_000);
});
