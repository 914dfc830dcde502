/**
 * `benchspec run --metrics`, a run of nearly two minutes scraped by a real Prometheus (Debian's package) started on loopback: the
 * counters it stored add up to the run's own rows, `histogram_quantile` over the latency buckets agrees
 * with a case's p99 within a bucket's width, and `promtool check metrics` accepts the exposition.
 */
import { execa } from "execa";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ResultRow } from "../../src/rows/row.js";
import { LATENCY_BUCKETS } from "../../src/results/live-metrics.js";
import { freePort } from "../../src/platform/ports.js";
import { rowsOf, startCli, tempDirs, writeSpec } from "../engines/support.js";
import { last, startPrometheus, type Prometheus } from "../support/prometheus.js";

const temps = tempDirs("benchspec-metrics-");
let prometheus: Prometheus | undefined;
afterAll(async () => {
  await prometheus?.stop();
  await temps.removeAll();
});

const sumOf = (rows: ResultRow[], pick: (r: ResultRow) => number) =>
  rows.filter((r) => !r.warmup && r.ok).reduce((sum, r) => sum + pick(r), 0);

describe("live metrics scraped by a real Prometheus", () => {
  it("counts what the rows count, and histogram_quantile agrees with a case's p99", async () => {
    const dir = await temps.make();
    const metricsPort = await freePort();
    prometheus = await startPrometheus(dir, [`127.0.0.1:${metricsPort}`]);
    const { query, total } = prometheus;
    const scratch = await temps.make();
    const spec = await writeSpec(dir, {
      name: "metrics-live",
      targets: { scratch: { kind: "fs", path: scratch }, store: { kind: "s3", launch: "minio" } },
      workloads: [
        // A run of nearly two minutes at a light load (rates, not closed loops): many scrapes of each counter
        // and of the running repetition, without starving the tests beside it.
        {
          name: "disk",
          target: "scratch",
          engine: "fio",
          op: "randread",
          size: "8MiB",
          rate: 500,
          duration: "15s",
          repeat: 3,
          warmup: 1,
        },
        {
          name: "objects",
          target: "store",
          op: "put",
          size: { "4KiB": "80%", "64KiB": "20%" },
          objects: 2000,
          concurrency: 4,
          rate: 100,
          duration: "15s",
          repeat: 2,
        },
      ],
    });
    const out = join(dir, "run");
    const run = startCli([
      "run",
      spec,
      "--out",
      out,
      "--metrics",
      String(metricsPort),
      "--metrics-linger",
      "6s",
    ]);
    // The exposition while the run goes, checked by Prometheus's own linter.
    let exposition = "";
    // The first measured row comes after the warm-up and a repetition: some 35 s.
    for (let i = 0; i < 600 && !exposition.includes("benchspec_latency_seconds_bucket"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      exposition = await fetch(`http://127.0.0.1:${metricsPort}/metrics`)
        .then((r) => r.text())
        .catch(() => "");
    }
    expect(exposition).toContain("benchspec_latency_seconds_bucket");
    const lint = await execa("promtool", ["check", "metrics"], {
      input: exposition,
      reject: false,
      all: true,
    });
    expect(lint.exitCode, lint.all).toBe(0);
    const result = await run;
    expect(result.exitCode, String(result.stderr)).toBe(0);
    expect(String(result.stderr)).toContain(`metrics: http://127.0.0.1:${metricsPort}/metrics`);
    const rows = await rowsOf(out);

    expect(await total(`sum(${last("benchspec_operations_total")})`)).toBe(sumOf(rows, (r) => r.ops));
    expect(await total(`sum(${last("benchspec_bytes_total")})`)).toBe(sumOf(rows, (r) => r.bytes));
    expect(await total(`sum(${last('benchspec_repetitions_total{result="ok"}')})`)).toBe(
      rows.filter((r) => !r.warmup && r.ok).length,
    );
    expect(await total(last("benchspec_cases_done_total"))).toBe(2);

    // One case's p99 from the buckets: the row's p99 (one repetition's operations pooled) lies in the
    // bucket Prometheus interpolates in; buckets are 2^(1/4) apart.
    const put = rows.filter((r) => r.case === "objects.store.put" && !r.warmup);
    const [p99] = await query(
      `histogram_quantile(0.99, sum by (le) (${last('benchspec_latency_seconds_bucket{case="objects.store.put"}')}))`,
    );
    const rowP99s = put.map((r) => r.latency!.p99!);
    const width = 2 ** 0.25 * 1.001;
    expect(p99!.value).toBeGreaterThan(Math.min(...rowP99s) / width);
    expect(p99!.value).toBeLessThan(Math.max(...rowP99s) * width);
    expect(LATENCY_BUCKETS.length).toBeGreaterThan(100);
    // Counts per bucket are cumulative and end at the operations.
    const count = await total(`sum(${last('benchspec_latency_seconds_count{case="objects.store.put"}')})`);
    expect(count).toBe(sumOf(put, (r) => r.ops));
    // The client host's telemetry of its last repetition: a share of its cores.
    const [busy] = await query(last("benchspec_host_cpu_busy_ratio"));
    expect(busy!.value).toBeGreaterThan(0);
    expect(busy!.value).toBeLessThanOrEqual(1);
    // The repetition running was a gauge while each ran: the fio case's last warm-up and measured ones.
    const highest = (warmup: boolean) =>
      total(`max_over_time(benchspec_repetition{case="disk.scratch.randread",warmup="${warmup}"}[10m])`);
    expect(await highest(true)).toBe(1);
    expect(await highest(false)).toBe(3);
    const [info] = await query(last("benchspec_run_info"));
    expect(info!.metric.spec).toBe("metrics-live");
  }, 300_000);
});
