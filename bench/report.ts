/**
 * Report build time and size over 1,000,000 result rows (target: it builds in seconds and stays a few
 * MB). Not a test: it prints its figures.
 *
 *   npx tsx bench/report.ts [rows]
 *
 * Two shapes, each a real plan from a scenario spec with synthetic rows written to a temp run directory:
 *   A. cloud-disk-pts (70 cases): `rows` result rows (~14,000 repetitions per case) and `rows` time-series
 *      points (WSAT-style, sampled every 100 ms);
 *   B. a 1,000-case matrix (bs × read × iodepth) with `rows` result rows (1,000 repetitions per case);
 *   C. a 10,000-case matrix (B × jobs) with `rows` result rows (100 repetitions per case): the page must
 *      stay a few MB however many cases there are.
 * Printed per shape: write time (not counted), load + aggregation, chart pre-rendering and assembly,
 * the HTML size, and the process's peak memory.
 */
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Plan } from "../src/plan/types.js";
import { VERSION } from "../src/cli/context.js";
import { buildReport } from "../src/report/index.js";
import { loadInputs } from "../src/report/load.js";
import { loadSpec } from "../src/engines/language.js";
import { fioMatrixPlan, writeRun } from "./synthetic-run.js";

const ROWS = Number(process.argv[2] ?? 1_000_000);

const cpuSeconds = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1e6;

async function shape(name: string, plan: Plan, rows: number, seriesPoints: number) {
  const dir = await mkdtemp(join(tmpdir(), "benchspec-bench-report-"));
  try {
    let t = performance.now();
    await writeRun(dir, plan, rows, seriesPoints);
    const input =
      (await stat(join(dir, "results.ndjson"))).size +
      (seriesPoints > 0 ? (await stat(join(dir, "timeseries.ndjson"))).size : 0);
    const writeSeconds = (performance.now() - t) / 1000;
    t = performance.now();
    let cpu = process.cpuUsage();
    const runs = await loadInputs([dir]);
    const loadSeconds = (performance.now() - t) / 1000;
    const loadCpu = cpuSeconds(process.cpuUsage(cpu));
    t = performance.now();
    cpu = process.cpuUsage();
    const { html, charts } = await buildReport(runs, { version: VERSION });
    const buildSeconds = (performance.now() - t) / 1000;
    const buildCpu = cpuSeconds(process.cpuUsage(cpu));
    const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
    console.log(
      [
        `${name}: ${rows.toLocaleString("en-US")} result rows over ${plan.cases.length} cases` +
          (seriesPoints ? ` + ${seriesPoints.toLocaleString("en-US")} series points` : ""),
        `  input ${mb(input)} (written in ${writeSeconds.toFixed(1)} s, not counted)`,
        `  load + aggregate  ${loadSeconds.toFixed(2)} s (CPU ${loadCpu.toFixed(2)} s)`,
        `  charts + HTML     ${buildSeconds.toFixed(2)} s (CPU ${buildCpu.toFixed(2)} s; ${charts.length} charts)`,
        `  total             ${(loadSeconds + buildSeconds).toFixed(2)} s (CPU ${(loadCpu + buildCpu).toFixed(2)} s)`,
        `  report size       ${mb(Buffer.byteLength(html))} (of which ~0.85 MB are the inlined chart libraries)`,
        `  peak RSS          ${mb(process.resourceUsage().maxRSS * 1024)}`,
      ].join("\n"),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const pts = await loadSpec(join(import.meta.dirname, "..", "specs", "cloud-disk-pts.yaml"));
if (!pts.plan) throw new Error("specs/cloud-disk-pts.yaml did not validate");
await shape("A. cloud-disk-pts", pts.plan, ROWS, ROWS);

const GRID = {
  bs: ["512B", "1KiB", "2KiB", "4KiB", "8KiB", "16KiB", "32KiB", "64KiB", "128KiB", "1MiB"],
  read: [0, 10, 20, 30, 40, 50, 60, 70, 80, 100],
  iodepth: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512],
};
await shape("B. 1,000-case matrix", fioMatrixPlan("wide-matrix", GRID), ROWS, 0);
await shape(
  "C. 10,000-case matrix",
  fioMatrixPlan("wider-matrix", { ...GRID, jobs: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] }),
  ROWS,
  0,
);
