/**
 * The page stays a few MB at any case count: tables and charts are cut, and the CSV download is embedded
 * only up to its own limit (a 10,000-case report was 15.8 MB, nearly all of it that CSV and the charts).
 */
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { VERSION } from "../../src/cli/context.js";
import { validateText } from "../../src/engines/language.js";
import { buildReport } from "../../src/report/index.js";
import { runFromRows } from "../../src/report/load.js";
import { MAX_TELEMETRY_CASES } from "../../src/report/charts/telemetry.js";
import type { RunData } from "../../src/report/model.js";
import { synthHostRows, synthRows, synthSeries, synthTelemetry } from "./support.js";

const MB = 1e6;

/** One fio workload of the matrix's product, 3 repetitions sampled every second. */
const grid = (matrix: Record<string, unknown>) =>
  validateText(
    "big.yaml",
    stringify({
      benchspec: 1,
      name: "big",
      targets: { scratch: { kind: "fs" } },
      workloads: [{ name: "grid", engine: "fio", op: "randrw", repeat: 3, sample: "1s", matrix }],
    }),
  ).plan!;

describe("report size", () => {
  it("a 10,000-case run makes a page under 3.5 MB that says where every case is", async () => {
    const plan = grid({
      bs: ["512B", "1KiB", "2KiB", "4KiB", "8KiB", "16KiB", "32KiB", "64KiB", "128KiB", "1MiB"],
      read: [0, 10, 20, 30, 40, 50, 60, 70, 80, 100],
      iodepth: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512],
      jobs: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    });
    expect(plan.cases).toHaveLength(10_000);
    const run = runFromRows("big", plan, synthRows(plan));
    const { html } = await buildReport([run], { version: VERSION, generatedAt: new Date(0) });
    expect(Buffer.byteLength(html)).toBeLessThan(3.5 * MB);
    expect(html).toContain("First 1000 of 10000 rows");
    expect(html).toContain("The per-case summary of 10000 cases");
  }, 120_000);

  it("cases run on several hosts add a hosts table and chart that are cut like the others", async () => {
    const plan = grid({
      bs: ["4KiB", "8KiB", "16KiB", "32KiB", "64KiB"],
      read: [0, 25, 50, 75, 100],
      iodepth: [1, 2, 4, 8, 16, 32, 64, 128],
    });
    expect(plan.cases).toHaveLength(200);
    const hosts = ["h1", "h2", "h3", "h4", "h5", "h6"].map((host, i) => ({
      host,
      speed: 1 + i / 10,
      delay: i / 100,
    }));
    const { rows, series } = synthHostRows(plan, hosts, { points: 10 });
    const multi = runFromRows("six", plan, rows, { series });
    const six = await buildReport([multi], { version: VERSION, generatedAt: new Date(0) });
    // 200 cases × (all hosts + 6 hosts) = 1,400 rows: the first 1,000 shown; 12 cases' series per host.
    expect(six.html).toContain("First 1000 of 1400 rows");
    const chart = six.charts.find((c) => c.kind === "hosts")!;
    expect(chart.caption.join(" ")).toContain("Only the first 12 of 200 panels");
    expect(Buffer.byteLength(six.html)).toBeLessThan(3.5 * MB);
  }, 120_000);

  it("host telemetry of every case adds one small chart per time series and a verdict per case", async () => {
    const plan = grid({
      bs: ["4KiB", "8KiB", "16KiB", "32KiB", "64KiB"],
      read: [0, 25, 50, 75, 100],
      iodepth: [1, 2, 4, 8, 16, 32, 64, 128],
      jobs: [1, 2, 3, 4, 5],
    });
    expect(plan.cases).toHaveLength(1000);
    const plain = synthRows(plan);
    const series = synthSeries(plan);
    const { rows, telemetry } = synthTelemetry(plain, () => ({ busy: 0.4, tx: 50e6 }));
    const report = (run: RunData) => buildReport([run], { version: VERSION, generatedAt: new Date(0) });
    const without = await report(runFromRows("grid", plan, plain, { series }));
    const withTelemetry = await report(runFromRows("grid", plan, rows, { series, telemetry }));
    const charts = withTelemetry.charts.filter((c) => c.kind === "telemetry");
    expect(charts).toHaveLength(withTelemetry.charts.filter((c) => c.kind === "timeseries").length);
    // 6 of the time series' cases, 10 time bins, CPU busy and iowait, eth0 rx and tx.
    for (const chart of charts) expect(chart.points).toBe(MAX_TELEMETRY_CASES * 10 * 4);
    expect(charts[0]!.caption.join(" ")).toMatch(/Only the first 6 of the \d+ cases/);
    // Added: the chart, its pre-rendered image and a verdict in each of the 1,000 table rows shown.
    const added = Buffer.byteLength(withTelemetry.html) - Buffer.byteLength(without.html);
    // (about 0.17 MB, on a page of 5 MB: the time series of 1,000 sampled cases are most of it)
    expect(added).toBeLessThan(0.25 * MB);
  }, 120_000);
});
