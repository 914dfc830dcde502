/**
 * What the report says is what was measured, named: the parameter an autotune chose, axis ticks at values
 * that were run, limit labels that can be read, one description per spec, and each process's share.
 */
import { describe, expect, it } from "vitest";
import { VERSION } from "../../src/cli/context.js";
import { buildCharts, type Chart } from "../../src/report/charts/index.js";
import { labelPlaces } from "../../src/report/charts/limits.js";
import { buildReport } from "../../src/report/index.js";
import { runFromRows } from "../../src/report/load.js";
import { renderSvg } from "../../src/report/render.js";
import { caseTable } from "../../src/report/tables.js";
import { workloadViews } from "../../src/report/view.js";
import { scenarioPlan, synthRows } from "./support.js";

type Row = Record<string, unknown>;
const rowsOf = (chart: Chart, kind: string) =>
  (chart.spec.data as { values: Row[] }).values.filter((r) => r.k === kind);

/** minio-speedtest with three autotune rounds measured: throughput grows up to concurrency 4. */
async function autotuned() {
  const plan = await scenarioPlan("minio-speedtest");
  const rows = synthRows(plan).flatMap((row) =>
    row.workload !== "speedtest"
      ? [row]
      : [2, 4, 8].map((concurrency) => ({
          ...row,
          params: { ...row.params, concurrency },
          throughput: Math.min(concurrency, 4) * 1e8,
        })),
  );
  return runFromRows("m", plan, rows);
}

describe("every number honest", () => {
  it("an autotuned case names the parameter it chose in the cases table", async () => {
    const run = await autotuned();
    const view = workloadViews([run]).find((v) => v.name === "speedtest")!;
    const html = caseTable(view, [], false);
    expect(html).toContain("concurrency=4 (autotuned)");
    // Never a bare value without its parameter's name.
    expect(html).not.toMatch(/<td>4<\/td>/);
  });

  it("the autotune chart's log axis ticks only at the values the rounds tried", async () => {
    const run = await autotuned();
    const chart = buildCharts({ runs: [run] }).charts.find((c) => c.kind === "autotune")!;
    const { svg } = await renderSvg(chart.spec);
    const ticks = [...svg.matchAll(/<text[^>]*>([\d.,]+)<\/text>/g)].map((m) => m[1]);
    // Vega's own log₂ ticks for 2…8 were 2, 2.5, 3, 3.5 … 7.5, 8.
    const vegaTicks = Array.from({ length: 13 }, (_, i) => String(2 + i / 2));
    expect(ticks.filter((t) => vegaTicks.includes(t!))).toEqual(["2", "4", "8"]);
  });

  it("limits close together get their labels in different places", async () => {
    // From the highest down: of two close limits, the lower one's label goes below its rule.
    expect(labelPlaces([100, 105, 300], 300)).toEqual([1, 0, 0]);
    expect(labelPlaces([104, 103, 102, 101, 100], 300)).toEqual([0, 1, 2, 3, 3]);
    const plan = await scenarioPlan("quickstart");
    const limits = [
      { label: "NIC", throughput: 250e6 },
      { label: "disk", throughput: 260e6 },
    ];
    const run = runFromRows("q", { ...plan, report: { ...plan.report, limits } }, synthRows(plan));
    const sweep = buildCharts({ runs: [run] }).charts.find(
      (c) => c.kind === "sweep" && c.workload === "dd-seq",
    )!;
    const places = rowsOf(sweep, "limit").map((r) => [r.lab, r.s]);
    expect(new Set(places.map(([, s]) => s)).size).toBe(2);
    const { svg } = await renderSvg(sweep.spec);
    const labels = [...svg.matchAll(/<text([^>]*)>(NIC|disk) \(/g)].map((m) => m[1]);
    expect(labels).toHaveLength(2);
    expect(labels[0]).not.toEqual(labels[1]);
  });

  it("a report of two runs of one spec prints its description once", async () => {
    const plan = await scenarioPlan("quickstart");
    const runs = [1, 2].map((seed) => runFromRows(`r${seed}`, plan, synthRows(plan, { seed })));
    const { html } = await buildReport(runs, { version: VERSION, generatedAt: new Date(0) });
    const header = html.slice(html.indexOf("<header>"), html.indexOf("</header>"));
    expect(header.split(plan.description!).length - 1).toBe(1);
  });

  it("dd with several processes: a chart of each process's throughput per case", async () => {
    const plan = await scenarioPlan("shared-storage-dd", ["count=4", "parallel=[2, 4]"]);
    const rows = synthRows(plan).map((row) => {
      const parallel = row.params.parallel as number;
      // The last process gets half the share of the others.
      const shares = Array.from({ length: parallel }, (_, i) => (i === parallel - 1 ? 0.5 : 1));
      const total = shares.reduce((a, b) => a + b, 0);
      return {
        ...row,
        jobs: shares.map((share, job) => ({
          job,
          bytes: (row.bytes * share) / total,
          seconds: row.seconds,
          throughput: (row.throughput * share) / total,
        })),
      };
    });
    const run = runFromRows("s", plan, rows);
    const { charts, warnings } = await buildReport([run], { version: VERSION, generatedAt: new Date(0) });
    expect(warnings).toEqual([]);
    const chart = charts.find((c) => c.kind === "processes")!;
    expect(chart.title).toBe("dd-parallel: throughput per process");
    const boxes = rowsOf(chart, "m");
    expect(boxes).toHaveLength(plan.cases.length);
    for (const box of boxes) {
      const [lo, q1, y, q3, hi] = [box.lo, box.q1, box.y, box.q3, box.hi] as number[];
      expect(lo).toBeLessThan(hi!);
      expect(lo! <= q1! && q1! <= y! && y! <= q3! && q3! <= hi!).toBe(true);
    }
    // One process per repetition: nothing to spread, no chart.
    const single = runFromRows("one", plan, synthRows(plan));
    expect(buildCharts({ runs: [single] }).charts.some((c) => c.kind === "processes")).toBe(false);
  });
});
