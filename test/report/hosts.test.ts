/**
 * Cases run on several hosts at once in the report: each host's figures in the model, the hosts table and
 * the per-host time series; nothing of it for runs of one host.
 */
import { describe, expect, it } from "vitest";
import { VERSION } from "../../src/cli/context.js";
import { buildReport } from "../../src/report/index.js";
import { runFromRows } from "../../src/report/load.js";
import { scenarioPlan, synthHostRows, synthRows, synthSeries } from "./support.js";

const HOSTS = [
  { host: "h1", speed: 1, delay: 0 },
  { host: "h2", speed: 0.25, delay: 0.04 },
];

async function quickstartFio() {
  const plan = await scenarioPlan("quickstart");
  return { ...plan, cases: plan.cases.filter((c) => c.workload === "fio-4k"), expect: [] };
}

describe("a report of cases run on several hosts", () => {
  it("has each host's own figures per case, the start spread, and each host's series besides the sum", async () => {
    const plan = await quickstartFio();
    const { rows, series } = synthHostRows(plan, HOSTS, { reps: 3 });
    const run = runFromRows("multi", plan, rows, { series });
    for (const c of run.cases) {
      const hosts = c.hosts!.hosts;
      expect(hosts.map((h) => h.host)).toEqual(["h1", "h2"]);
      const row = rows.find((r) => r.case === c.id && r.repetition === 1)!;
      // Each host's own throughput, not the merged one; h2 is the slow one.
      expect(hosts[0]!.throughput).toBeCloseTo(row.hosts![0]!.throughput, -3);
      expect(hosts[1]!.throughput! / hosts[0]!.throughput!).toBeCloseTo(0.25, 1);
      expect(hosts[1]!.offset).toBeCloseTo(0.04, 6);
      expect(hosts[0]!.offset).toBe(0);
      expect(hosts.every((h) => h.p99 !== undefined && h.repetitions === 3 && h.failed === 0)).toBe(true);
      expect(c.hosts!.startSpread).toEqual({ median: 0.04, max: 0.04 });
      // The case's own figures are the merged rows': more than either host alone.
      expect(c.metrics.throughput!.median).toBeGreaterThan(hosts[0]!.throughput!);
      const own = run.series.filter((s) => s.case === c.id);
      expect(own.map((s) => s.host ?? "sum").sort()).toEqual(["h1", "h2", "sum"]);
    }

    const { html, charts, warnings } = await buildReport([run], {
      version: VERSION,
      generatedAt: new Date(0),
    });
    expect(warnings).toEqual([]);
    const table = /<table class="hosts">[\s\S]*?<\/table>/.exec(html)?.[0] ?? "";
    for (const c of run.cases) expect(table).toContain(c.id);
    expect(table.match(/<td>h1<\/td>/g)).toHaveLength(run.cases.length);
    expect(table.match(/<td>h2<\/td>/g)).toHaveLength(run.cases.length);
    expect(table).toContain("all 2 hosts");
    expect(table).toContain("spread 40.00 ms (max 40.00 ms)");
    // h2 is marked as the slow host, at a quarter of the fastest.
    expect(table).toMatch(/class="num slowest" title="the slowest host of this case"/);
    expect(table).toContain("25.0%");
    const hostsChart = charts.find((c) => c.kind === "hosts")!;
    const values = (hostsChart.spec.data as { values: { k: string; h: string }[] }).values;
    expect(new Set(values.map((v) => v.h))).toEqual(new Set(["h1", "h2", "all hosts (sum)"]));
    expect(hostsChart.caption.join(" ")).toContain(
      "start spread: the latest host's start − the earliest host's start",
    );
  });

  it("has a host's failures in its row, and its successful repetitions' figures", async () => {
    const plan = await quickstartFio();
    const { rows, series } = synthHostRows(plan, HOSTS, { reps: 3 });
    const failing = rows.map((row) =>
      row.repetition === 2
        ? {
            ...row,
            ok: false,
            error: "h2: lost",
            hosts: row.hosts!.map((h) => (h.host === "h2" ? { ...h, ok: false, error: "lost" } : h)),
          }
        : row,
    );
    const run = runFromRows("multi", plan, failing, { series });
    const [h1, h2] = run.cases[0]!.hosts!.hosts;
    expect(h1).toMatchObject({ repetitions: 3, failed: 0 });
    expect(h2).toMatchObject({ repetitions: 3, failed: 1, errors: ["lost"] });
    const { html } = await buildReport([run], { version: VERSION, generatedAt: new Date(0) });
    expect(/<table class="hosts">[\s\S]*?<\/table>/.exec(html)?.[0]).toContain("<div>lost</div>");
  });

  it("adds nothing to a run of one host", async () => {
    const plan = await scenarioPlan("quickstart");
    const run = runFromRows("single", plan, synthRows(plan), { series: synthSeries(plan) });
    expect(run.cases.every((c) => c.hosts === undefined)).toBe(true);
    expect(run.series.every((s) => s.host === undefined)).toBe(true);
    const { html, charts } = await buildReport([run], { version: VERSION, generatedAt: new Date(0) });
    expect(charts.some((c) => c.kind === "hosts")).toBe(false);
    expect(html).not.toContain('class="hosts"');
    expect(html).not.toContain("<h3>Hosts</h3>");
  });
});
