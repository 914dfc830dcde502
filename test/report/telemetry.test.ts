/**
 * Host telemetry in the report: the CPU and network chart under a time series (its samples read for the
 * drawn cases only), and the verdict per case in the cases table, as summary.json has it.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { VERSION } from "../../src/cli/context.js";
import { validateText } from "../../src/engines/language.js";
import { buildReport } from "../../src/report/index.js";
import { loadInputs, runFromRows } from "../../src/report/load.js";
import { telemetryData } from "../../src/report/charts/telemetry-data.js";
import { telemetrySeries } from "../../src/report/telemetry-series.js";
import { nicLimits, summarizeCase } from "../../src/results/summary.js";
import { synthRows, synthSeries, synthTelemetry } from "./support.js";

const plan = validateText(
  "net.yaml",
  stringify({
    benchspec: 1,
    name: "net",
    targets: { scratch: { kind: "fs" } },
    workloads: [
      {
        name: "up",
        engine: "dd",
        op: "write",
        bs: "1MiB",
        count: 8,
        repeat: 2,
        sample: "1s",
        matrix: { parallel: [1, 2] },
      },
    ],
    report: { limits: [{ label: "1 GbE", throughput: "1Gbit/s", interface: "eth0" }] },
  }),
).plan!;
const [one, two] = plan.cases;
// The first case sends at 120 MB/s, 96% of 1 Gbit/s (125 MB/s): its network was the limit.
const { rows, telemetry } = synthTelemetry(synthRows(plan), (row) =>
  row.case === one!.id ? { busy: 0.3, tx: 120e6 } : { busy: 0.2, tx: 40e6 },
);
const build = (run = runFromRows("net", plan, rows, { series: synthSeries(plan), telemetry })) =>
  buildReport([run], { version: VERSION, generatedAt: new Date(0) });

describe("host telemetry in the report", () => {
  it("draws CPU and each interface over time under the time series, with the NIC's limit", async () => {
    const { charts, warnings } = await build();
    // Pre-rendered (Vega in Node) without a warning.
    expect(warnings).toEqual([]);
    const at = charts.findIndex((c) => c.kind === "timeseries");
    const chart = charts[at + 1]!;
    expect(chart.kind).toBe("telemetry");
    const values = (chart.spec.data as { values: Record<string, unknown>[] }).values;
    const cpu = values.filter((v) => v.k === "cpu");
    const net = values.filter((v) => v.k === "net");
    // 2 cases × 10 time bins (the repetitions pooled) × busy and iowait.
    expect(cpu).toHaveLength(40);
    expect(cpu.filter((v) => v.d === "busy").map((v) => v.y)).toContain(30);
    // eth0 only (loopback left out), in MB/s, received and sent.
    expect(new Set(cpu.map((v) => v.s))).toEqual(new Set(["parallel=1", "parallel=2"]));
    expect(new Set(net.map((v) => v.s))).toEqual(new Set(["parallel=1 · eth0", "parallel=2 · eth0"]));
    expect(Math.max(...net.map((v) => v.y as number))).toBe(120);
    expect(values.filter((v) => v.k === "limit").map((v) => v.y)).toEqual([125]);
    expect(chart.caption.join(" ")).toContain("Not drawn: lo");
  });

  it("says each case's verdict in the cases table, as summary.json has it", async () => {
    const { html } = await build();
    const nics = nicLimits(plan);
    const [saturated] = summarizeCase(one!, rows, nics).telemetry![0]!.saturated;
    expect(saturated).toMatch(/^network: eth0 sent 960 Mbit\/s, 96 % of 1 GbE/);
    expect(html).toContain(`<div>${saturated!}</div>`);
    expect(summarizeCase(two!, rows, nics).telemetry![0]!.saturated).toEqual([]);
    expect(html).toContain("<div>none saturated</div>");
    expect(html).toMatch(/<th title="Saturated: a resource of the client host at 90% or more/);
  });

  it("draws loopback when it carries most of the traffic (a server on this machine), and no quiet interface", () => {
    const of = (lo: number, eth0: number) =>
      telemetryData(
        [
          {
            label: "",
            series: {
              case: "c",
              repetitions: 1,
              points: [
                { t: 1, busy: 0.1, iowait: 0, net: { lo: { rx: lo, tx: lo }, eth0: { rx: eth0, tx: eth0 } } },
              ],
            },
          },
        ],
        new Set(),
      )!;
    expect(of(100e6, 10e6).interfaces).toEqual(["eth0", "lo"]);
    // Under 1 % of the busiest interface's traffic: a flat line, left out.
    expect(of(100e6, 1e3)).toMatchObject({ interfaces: ["lo"], left: ["eth0"] });
    expect(of(1e6, 100e6)).toMatchObject({ interfaces: ["eth0"], left: ["lo"] });
  });

  it("rows without telemetry show no verdict and no telemetry chart", async () => {
    const { html, charts } = await build(
      runFromRows("net", plan, synthRows(plan), { series: synthSeries(plan) }),
    );
    expect(charts.some((c) => c.kind === "telemetry")).toBe(false);
    expect(html).not.toContain("none saturated");
    expect(html).not.toContain("Saturated: a resource");
  });

  it("one line per host in a case run on several", async () => {
    const hosts = synthTelemetry(synthRows(plan), () => ({ busy: 0.5, tx: 1e6, host: "h1" }));
    const other = synthTelemetry(synthRows(plan), () => ({ busy: 0.95, tx: 1e6, host: "h2" }));
    const merged = hosts.rows.map((row, i) => ({
      ...row,
      telemetry: undefined,
      hosts: [
        { host: "h1", telemetry: row.telemetry },
        { host: "h2", telemetry: other.rows[i]!.telemetry },
      ],
    }));
    const run = runFromRows("net", plan, merged as never, {
      series: synthSeries(plan),
      telemetry: [...hosts.telemetry, ...other.telemetry],
    });
    const { html, charts } = await build(run);
    const values = (
      charts.find((c) => c.kind === "telemetry")!.spec.data as { values: Record<string, unknown>[] }
    ).values;
    expect(new Set(values.filter((v) => v.k === "cpu").map((v) => v.s))).toEqual(
      new Set(["parallel=1 · h1", "parallel=1 · h2", "parallel=2 · h1", "parallel=2 · h2"]),
    );
    expect(html).toContain("<div>h1: none saturated</div>");
    expect(html).toContain("<div>h2: client CPU: all cores 95 % busy</div>");
  });

  it("reads a run directory's telemetry.ndjson only for the cases asked for", async () => {
    const dir = await mkdtemp(join(tmpdir(), "benchspec-report-telemetry-"));
    try {
      await writeFile(join(dir, "plan.json"), JSON.stringify(plan));
      await writeFile(join(dir, "results.ndjson"), rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
      await writeFile(
        join(dir, "timeseries.ndjson"),
        synthSeries(plan)
          .map((r) => JSON.stringify(r))
          .join("\n") + "\n",
      );
      await writeFile(
        join(dir, "telemetry.ndjson"),
        telemetry.map((r) => JSON.stringify(r)).join("\n") + "\n",
      );
      const [run] = await loadInputs([dir]);
      expect(run!.telemetry).toEqual({ file: join(dir, "telemetry.ndjson") });
      const series = await telemetrySeries(run!, new Set([two!.id]));
      expect(series.map((s) => s.case)).toEqual([two!.id]);
      expect(series[0]!.repetitions).toBe(2);
      expect(series[0]!.points).toHaveLength(10);
      expect(series[0]!.points[0]!.net.eth0!.tx).toBe(40e6);
      const { charts } = await build(run);
      expect(charts.some((c) => c.kind === "telemetry")).toBe(true);
      // Rows parsed on several threads: the same verdicts and figures as on one.
      const [threaded] = await loadInputs([dir], { threads: 3, threadsFrom: 0 });
      const [single] = await loadInputs([dir], { threads: 1 });
      expect(single!.cases[0]!.telemetry![0]!.saturated).toHaveLength(1);
      expect(threaded!.cases.map((c) => c.telemetry)).toEqual(single!.cases.map((c) => c.telemetry));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
