import { describe, expect, it } from "vitest";
import { VERSION } from "../../src/cli/context.js";
import { primaryMetric } from "../../src/report/charts/defaults.js";
import { buildCharts, type Chart } from "../../src/report/charts/index.js";
import { buildReport } from "../../src/report/index.js";
import { runFromRows } from "../../src/report/load.js";
import type { RunData } from "../../src/report/model.js";
import type { ResultRow } from "../../src/rows/row.js";
import { renderSvg } from "../../src/report/render.js";
import { workloadViews } from "../../src/report/view.js";
import { scenarioPlan, synthRows, synthSeries } from "./support.js";
import { planOf } from "../support/spec.js";

type Spec = Record<string, unknown>;

/** The data rows of one kind ("m" measured, "e" expect, "limit", "ts", "ss", "knee"). */
const rowsOf = (chart: Chart, kind?: string) =>
  ((chart.spec.data as { values: Spec[] }).values ?? []).filter((r) => kind === undefined || r.k === kind);
const layers = (chart: Chart) => ((chart.spec.spec as Spec | undefined)?.layer ?? chart.spec.layer) as Spec[];
const encodingOf = (chart: Chart, index = 0) => layers(chart)[index]!.encoding as Record<string, Spec>;
const markOf = (chart: Chart, index = 0) => (layers(chart)[index]!.mark as Spec).type;
const facetOf = (chart: Chart) => chart.spec.facet as Spec | undefined;
const find = (charts: Chart[], kind: Chart["kind"], workload?: string) =>
  charts.filter((c) => c.kind === kind && (!workload || c.workload === workload));

async function scenario(name: string, sets: string[] = [], options: Parameters<typeof synthRows>[1] = {}) {
  const plan = await scenarioPlan(name, sets);
  return { plan, run: runFromRows(name, plan, synthRows(plan, options), { series: synthSeries(plan) }) };
}

/** Every chart must compile and render in Node without a Vega or Vega-Lite warning. */
async function expectCleanRender(runs: RunData[]) {
  const report = await buildReport(runs, { version: VERSION, generatedAt: new Date(0) });
  expect(report.warnings).toEqual([]);
  return report;
}

describe("charts chosen from the plan's shape", () => {
  it("quickstart: dd by parallel coloured by op, fio IOPS by op, fio latency percentiles and series, expect", async () => {
    const { run } = await scenario("quickstart");
    const { charts } = buildCharts({ runs: [run] });
    const [dd] = find(charts, "sweep", "dd-seq");
    expect(encodingOf(dd!).x).toMatchObject({ field: "x", title: "parallel", sort: ["1", "4"] });
    expect(encodingOf(dd!).color).toMatchObject({ field: "c", title: "op", sort: ["write", "read"] });
    expect(encodingOf(dd!).xOffset).toBeDefined();
    expect(markOf(dd!)).toBe("bar");
    expect(rowsOf(dd!, "m")).toHaveLength(4);
    // The expect bound is drawn on the case it checks.
    expect(rowsOf(dd!, "e")).toEqual([expect.objectContaining({ x: "1", c: "write", y: 10, st: "pass" })]);
    const [fio] = find(charts, "sweep", "fio-4k");
    expect(encodingOf(fio!).y).toMatchObject({ title: expect.stringMatching(/^IOPS/) });
    expect(encodingOf(fio!).x).toMatchObject({ title: "op" });
    expect(find(charts, "latency", "fio-4k")).toHaveLength(1);
    expect(find(charts, "latency", "dd-seq")).toHaveLength(0);
    expect(find(charts, "timeseries", "fio-4k")).toHaveLength(1);
    expect(find(charts, "expect")).toHaveLength(1);
    await expectCleanRender([run]);
  });

  it("shared storage: the spec's chart — grouped bars of target × parallel, no facets", async () => {
    const { run } = await scenario("shared-storage-dd", ["count=4", "parallel=[2, 4]"]);
    const { charts } = buildCharts({ runs: [run] });
    expect(charts).toHaveLength(1);
    const [chart] = charts;
    expect(facetOf(chart!)).toBeUndefined();
    expect(encodingOf(chart!).x).toMatchObject({ title: "parallel", sort: ["2", "4"] });
    expect(encodingOf(chart!).color).toMatchObject({
      title: "target",
      sort: ["nfs", "cephfs", "glusterfs", "cloud-nas-a", "cloud-nas-b"],
    });
    expect(encodingOf(chart!).xOffset).toBeDefined();
    expect(rowsOf(chart!, "m")).toHaveLength(10);
    // Whiskers: the 95% CI of the mean, never below zero.
    expect(
      rowsOf(chart!, "m").every(
        (r) => typeof r.lo === "number" && (r.lo as number) >= 0 && (r.hi as number) >= (r.y as number),
      ),
    ).toBe(true);
    await expectCleanRender([run]);
  });

  it("cloud disks: IOPS lines by bs coloured by read share, WSAT over time, latency percentiles faceted by disk and read share, both expectations", async () => {
    const { plan } = await scenario("cloud-disk-pts");
    const run = runFromRows("pts", plan, synthRows(plan, { reps: 2 }), {
      series: synthSeries(plan, { points: 1800, reps: 1 }),
    });
    const { charts } = buildCharts({ runs: [run] });
    const [iops] = find(charts, "sweep", "iops");
    expect(markOf(iops!)).toBe("line");
    expect(encodingOf(iops!).x).toMatchObject({
      sort: ["512B", "4KiB", "8KiB", "16KiB", "32KiB", "64KiB", "128KiB", "1MiB"],
    });
    expect(encodingOf(iops!).color).toMatchObject({
      title: "read",
      sort: ["0%", "5%", "35%", "50%", "65%", "95%", "100%"],
    });
    expect(rowsOf(iops!, "m")).toHaveLength(2 * 56);
    const [wsat] = find(charts, "timeseries", "wsat");
    expect(rowsOf(wsat!, "ts").length).toBeLessThanOrEqual(2 * 300); // at most 300 points per disk
    // Throughput workload: bs on x, read/write as colour; latency workload: IOPS (small random I/O).
    const [tp] = find(charts, "sweep", "throughput");
    expect(encodingOf(tp!).x).toMatchObject({ title: "bs" });
    expect(encodingOf(tp!).color).toMatchObject({ title: "op" });
    const [lat] = find(charts, "latency", "latency");
    expect(facetOf(lat!)).toMatchObject({ field: "f", title: "target · read" });
    expect(primaryMetric(workloadViews([run]).find((v) => v.name === "latency")!)).toBe("iops");
    const [expectChart] = find(charts, "expect");
    expect(rowsOf(expectChart!)).toHaveLength(2 * 2); // each expectation has its bound per disk
    await expectCleanRender([run]);
  });

  it("steady-state windows are shaded on the series of the case", async () => {
    const plan = await scenarioPlan("cloud-disk-pts", ["iops.bs=[4KiB]", "iops.read=[0]"]);
    const id = plan.cases[0]!.id;
    const run = runFromRows("pts", plan, synthRows(plan), {
      series: synthSeries(plan, { cases: [id], points: 10 }),
      steady: [{ case: id, repetition: 1, start: 8, end: 10, attained: true, criterion: "iops_slope:10%" }],
    });
    const { charts } = buildCharts({ runs: [run] });
    const [chart] = find(charts, "timeseries", "iops");
    expect(rowsOf(chart!, "ss")).toEqual([expect.objectContaining({ t0: 8, t1: 10, txt: "steady" })]);
    expect(markOf(chart!)).toBe("rect");
    await expectCleanRender([run]);
  });

  it("a series of a single time bin is drawn as a point, not lost as a one-point line", async () => {
    const plan = await scenarioPlan("quickstart");
    const ids = plan.cases.filter((c) => c.workload === "fio-4k").map((c) => c.id);
    const run = runFromRows("q", plan, synthRows(plan), {
      series: synthSeries(plan, { cases: ids, points: 1, reps: 1 }),
    });
    const [chart] = find(buildCharts({ runs: [run] }).charts, "timeseries", "fio-4k");
    expect(rowsOf(chart!, "ts")).toHaveLength(ids.length);
    const marks = layers(chart!).map((l) => (l.mark as Spec).type);
    // The points are drawn on top of the line, from the same rows.
    expect(marks.slice(-2)).toEqual(["line", "point"]);
    expect(layers(chart!).at(-1)!.transform).toEqual(layers(chart!).at(-2)!.transform);
    expect(encodingOf(chart!, marks.length - 1).y).toMatchObject({ field: "y" });
    // Rendered: one symbol per case.
    const { svg, warnings } = await renderSvg(chart!.spec);
    expect(warnings).toEqual([]);
    const symbols = /<g class="mark-symbol role-mark[^"]*"[^>]*>([\s\S]*?)<\/g>/.exec(svg)?.[1] ?? "";
    expect(symbols.match(/<path /g)).toHaveLength(ids.length);
  });

  it("the latency caption says where each engine's percentiles come from", async () => {
    const { run } = await scenario("quickstart");
    const [fio] = find(buildCharts({ runs: [run] }).charts, "latency", "fio-4k");
    expect(fio!.caption[0]).toContain("fio: completion latency from fio's json+ histograms.");
    expect(fio!.caption[0]).not.toMatch(/s3|ipfs|dd|first byte/);
    const plan = await scenarioPlan("ipfs-file-sizes");
    const rows = synthRows(plan).map((row) => ({
      ...row,
      latency: { mean: 0.01, p50: 0.01, p90: 0.02, p99: 0.05, "p99.9": 0.08 },
      ...(row.op === "get" && { ttfb: { p50: 0.002, p99: 0.004 } }),
    }));
    const objects = runFromRows("i", plan, rows);
    const [latency] = find(buildCharts({ runs: [objects] }).charts, "latency");
    const caption = latency!.caption[0]!;
    expect(caption).toContain(
      "ipfs and s3: per-operation latency measured by the engine (from sending a request to the end of its response); time to first byte of reads is in the case table, not here.",
    );
    expect(caption).not.toContain("json+");
    expect(caption).not.toContain("due");
    // At a rate, the latencies are response times, from each request's due instant: said.
    const open = await scenarioPlan("ipfs-file-sizes", ["rate=200"]);
    const atRate = runFromRows(
      "o",
      open,
      synthRows(open).map((row) => ({ ...row, latency: rows[0]!.latency })),
    );
    expect(find(buildCharts({ runs: [atRate] }).charts, "latency")[0]!.caption[0]).toContain(
      "at a rate, from the instant each request was due: its response time",
    );
    // Without time to first byte in the rows, the caption does not point to it.
    const noTtfb = runFromRows(
      "i",
      plan,
      rows.map(({ ttfb: _, ...row }) => row),
    );
    expect(find(buildCharts({ runs: [noTtfb] }).charts, "latency")[0]!.caption[0]).not.toContain(
      "first byte",
    );
    // dd has no latency: said when a workload mixes it with an engine that has.
    const quick = await scenarioPlan("quickstart");
    const one = { ...quick, cases: quick.cases.map((c) => ({ ...c, workload: "all" })) };
    const mixed = runFromRows("m", one, synthRows(one));
    const [both] = find(buildCharts({ runs: [mixed] }).charts, "latency");
    expect(both!.caption[0]).toContain("dd reports no per-operation latency: its cases are not drawn.");
    expect(both!.caption[0]).toContain("fio: completion latency");
  });

  it("IPFS vs S3: the spec's charts, size on x, target as colour, op as facets", async () => {
    const { run } = await scenario("ipfs-file-sizes");
    const { charts } = buildCharts({ runs: [run] });
    const sweeps = find(charts, "sweep");
    expect(sweeps).toHaveLength(2);
    for (const chart of sweeps) {
      expect(facetOf(chart)).toMatchObject({ title: "op", sort: ["put", "get"] });
      expect(encodingOf(chart).color).toMatchObject({ title: "target", sort: ["ipfs", "s3"] });
      expect(encodingOf(chart).x).toMatchObject({
        title: "size",
        sort: ["1MB", "5MB", "10MB", "50MB", "100MB", "500MB", "1GB"],
      });
    }
    expect(encodingOf(sweeps[0]!).y).toMatchObject({ title: expect.stringMatching(/^time per repetition/) });
    await expectCleanRender([run]);
  });

  it("object store: limits as labelled rules, objects (always = concurrency) not a dimension", async () => {
    // 2 GB/s measured against a 25 Gbit/s (3.125 GB/s) NIC: within reach, drawn.
    const { run } = await scenario("object-upload-download", [], { throughput: () => 2e9 });
    const { charts } = buildCharts({ runs: [run] });
    const bars = find(charts, "sweep", "transfer")[0]!;
    expect(facetOf(bars)).toMatchObject({ title: "op" });
    expect(encodingOf(bars).color).toBeUndefined();
    expect(rowsOf(bars, "limit").map((r) => r.lab)).toEqual([
      "NIC 25 Gbit/s (3.125 GB/s)",
      "NIC 25 Gbit/s (3.125 GB/s)",
      "95% of NIC (2.969 GB/s)",
      "95% of NIC (2.969 GB/s)",
    ]);
    expect(layers(bars).some((l) => (l.mark as Spec).type === "rule" && (l.mark as Spec).strokeDash)).toBe(
      true,
    );
    expect(workloadViews([run])[0]!.dims).toEqual(["concurrency", "op"]);
    await expectCleanRender([run]);
  });

  it("a limit far above the data is said in the caption instead of flattening the bars", async () => {
    const { run } = await scenario("minio-speedtest", [], { throughput: () => 100e6 });
    const { charts } = buildCharts({ runs: [run] });
    const chart = find(charts, "sweep", "speedtest")[0]!;
    expect(rowsOf(chart, "limit")).toEqual([]);
    expect(chart.caption.join(" ")).toContain(
      "“100 Gbit/s network” (12.50 GB/s) is off the chart: the highest value shown is 0.8% of it",
    );
  });

  it("autotune: throughput against the tuned value with the knee marked; no chart when rows lack the value", async () => {
    const plan = await scenarioPlan("minio-speedtest");
    const rows = synthRows(plan).flatMap((row) =>
      row.workload !== "speedtest"
        ? [row]
        : [4, 8, 16, 32].map((concurrency) => ({
            ...row,
            params: { ...row.params, concurrency },
            throughput: Math.min(concurrency, 16) * 1e8,
          })),
    );
    const { charts } = buildCharts({ runs: [runFromRows("m", plan, rows)] });
    const tune = find(charts, "autotune", "speedtest");
    expect(tune).toHaveLength(1);
    expect(rowsOf(tune[0]!, "knee").map((r) => r.lab)).toEqual([
      "knee: concurrency = 16",
      "knee: concurrency = 16",
    ]);
    expect(encodingOf(tune[0]!).x).toMatchObject({ scale: { type: "log", base: 2 } });
    await expectCleanRender([runFromRows("m", plan, rows)]);
    const plain = buildCharts({ runs: [runFromRows("m", plan, synthRows(plan))] });
    expect(find(plain.charts, "autotune")).toHaveLength(0);
  });

  it("autotune by a latency bound: the bound figure against the load on log axes, the bound drawn, the highest load within it marked", async () => {
    const plan = planOf({
      benchspec: 1,
      name: "knee",
      targets: { store: { kind: "s3", launch: "minio" } },
      workloads: [
        {
          name: "w",
          op: "put",
          size: "4KiB",
          objects: 100,
          repeat: 3,
          autotune: {
            param: "rate",
            start: 100,
            factor: 2,
            max: 1600,
            bound: { metric: "p99", atMost: "20ms" },
          },
        },
      ],
    });
    // Each repetition ramps 100, 200, 400 (met), 800 (missed) and bisects to its own answer: a loaded store
    // varies near its bound, so they end at 476, 436 and 518/s.
    const tried = [
      [
        [100, 200, 400, 476],
        [800, 566],
      ],
      [
        [100, 200, 400, 436],
        [800, 566, 476],
      ],
      [
        [100, 200, 400, 476, 518],
        [800, 566],
      ],
    ];
    const rows = synthRows(plan).map((row, i) => {
      const [met, missed] = tried[i]!;
      const chosen = Math.max(...met!);
      const rounds = [...met!.map((value) => [value, 0.005]), ...missed!.map((value) => [value, 0.05])].map(
        ([value, p99]) => ({
          value: value!,
          throughput: value! * 4096,
          iops: value!,
          bytes: value! * 4096,
          seconds: 1,
          latency: { p50: p99! / 2, p99: p99! },
          met: p99! <= 0.02,
        }),
      );
      const knee = rounds.find((r) => r.value === chosen)!;
      return {
        ...row,
        iops: knee.iops,
        throughput: knee.throughput,
        latency: knee.latency,
        params: { ...row.params, rate: { opsPerSecond: chosen } },
        autotune: { param: "rate", rounds, chosen, bound: { metric: "p99" as const, atMost: 0.02 } },
      };
    });
    const run = runFromRows("k", plan, rows);
    const figures = run.cases[0]!;
    // The case's answer is the repetitions' lower median; its figures are their chosen rounds'.
    expect(figures.autotune!.knee).toBe(476);
    expect(figures.metrics.iops!.median).toBe(476);
    expect(figures.metrics.iops!.n).toBe(3);
    // The steps, pooled by value for the curve: 476/s met in two of the three rounds that ran it.
    expect(figures.autotune!.rounds.map((r) => [r.value, r.n, r.met])).toEqual([
      [100, 3, true],
      [200, 3, true],
      [400, 3, true],
      [436, 1, true],
      [476, 3, true],
      [518, 1, true],
      [566, 3, false],
      [800, 3, false],
    ]);
    expect(figures.params.rate).toEqual({ opsPerSecond: 476 });
    const [tune] = find(buildCharts({ runs: [run] }).charts, "autotune", "w");
    expect(tune!.title).toBe("w: p99 latency against rate (highest rate with p99 ≤ 20.00 ms)");
    expect(encodingOf(tune!).x).toMatchObject({
      title: "rate (operations/s) (log scale)",
      scale: { type: "log" },
    });
    expect(encodingOf(tune!).y).toMatchObject({ scale: { type: "log" } });
    expect(rowsOf(tune!, "bound")).toEqual([expect.objectContaining({ lab: "bound: p99 ≤ 20.00 ms" })]);
    expect(rowsOf(tune!, "knee")).toEqual([
      expect.objectContaining({ x: 476, lab: "highest rate within the bound: 476" }),
    ]);
    expect(rowsOf(tune!, "m").map((r) => r.g)).toEqual([
      "met",
      "met",
      "met",
      "met",
      "met",
      "met",
      "missed",
      "missed",
    ]);
    await expectCleanRender([run]);
    // No step met the bound: no value is chosen, and the case says so.
    const none = runFromRows(
      "k",
      plan,
      rows.map((row) => ({
        ...row,
        autotune: {
          ...row.autotune,
          rounds: row.autotune.rounds.slice(0, 1).map((r) => ({ ...r, met: false })),
        },
      })),
    ).cases[0]!;
    expect(none.autotune!.knee).toBeUndefined();
    expect(none.warnings).toContainEqual(
      "autotune: no rate met p99 ≤ 20ms in most repetitions; statistics of each repetition's chosen round (its first when none met)",
    );
  });

  it("sizes drawn from a distribution: latency per size class, classes in size order, each the repetitions' median", async () => {
    const plan = planOf({
      benchspec: 1,
      name: "sizes",
      targets: { store: { kind: "s3", launch: "minio" } },
      workloads: [
        { name: "b", op: ["put", "get"], size: { "4KiB": "70%", "1MiB": "30%" }, objects: 10, repeat: 3 },
        { name: "u", op: "put", size: { uniform: ["3KiB", "20KiB"] }, objects: 10 },
      ],
    });
    const part = (ops: number, size: number, p50: number) => ({
      ops,
      bytes: ops * size,
      errors: 0,
      latency: { p50, p99: 2 * p50 },
    });
    const rows = synthRows(plan).map((row, i): ResultRow => ({
      ...row,
      bySize:
        row.workload === "b"
          ? { "1048576": part(3, 2 ** 20, 0.01 * (1 + (i % 3))), "4096": part(7, 4096, 0.001) }
          : { "4096": part(1, 3500, 0.002), "8192": part(4, 6000, 0.003), "32768": part(5, 20000, 0.004) },
    }));
    const run = runFromRows("s", plan, rows);
    const put = run.cases.find((c) => c.id === "b.store.put")!;
    expect(put.bySize).toEqual([
      { size: 4096, ops: 21, bytes: 21 * 4096, errors: 0, p50: 0.001, p99: 0.002 },
      { size: 2 ** 20, ops: 9, bytes: 9 * 2 ** 20, errors: 0, p50: 0.02, p99: 0.04 },
    ]);
    const { charts } = buildCharts({ runs: [run] });
    const [buckets] = find(charts, "sizes", "b");
    expect(buckets!.title).toBe("b: latency per size class");
    expect(encodingOf(buckets!).x).toMatchObject({ sort: ["4KiB", "1MiB"] });
    expect(encodingOf(buckets!).y).toMatchObject({ scale: { type: "log" } });
    expect(
      rowsOf(buckets!, "m")
        .filter((r) => r.s === "put" && r.x === "1MiB")
        .map((r) => [r.p, r.y]),
    ).toEqual([
      ["p50", 20],
      ["p99", 40],
    ]);
    const [uniform] = find(charts, "sizes", "u");
    // Power-of-two classes read as ranges, in size order (not the order of their keys as text).
    expect(encodingOf(uniform!).x).toMatchObject({ sort: ["2KiB–4KiB", "4KiB–8KiB", "16KiB–32KiB"] });
    await expectCleanRender([run]);
  });

  it("autotuned op: [put, get]: the op stays a dimension of the default chart, whatever value each op tuned to", async () => {
    // The spec's own chart of the workload left out: the default one is drawn.
    const plan = await scenarioPlan("minio-speedtest", ["report.charts=[]"]);
    // Each op stopped at its own knee: the tuned value differs by op, as it does in a real run.
    const rows = synthRows(plan).map((row) => {
      if (row.workload !== "speedtest") return row;
      const knee = row.op === "put" ? 16 : 32;
      const rounds = [4, 8, 16, 32, 64].map((value) => {
        const throughput = Math.min(value, knee) * 1e8;
        return { value, throughput, iops: throughput / 2 ** 20, bytes: throughput, seconds: 1 };
      });
      return {
        ...row,
        params: { ...row.params, concurrency: knee },
        autotune: { param: "concurrency", rounds, chosen: knee },
      };
    });
    const run = runFromRows("m", plan, rows);
    const view = workloadViews([run]).find((v) => v.name === "speedtest")!;
    expect(view.entries.some((e) => e.c.autotune)).toBe(true);
    expect(view.dims).toEqual(["op"]);
    const [sweep] = find(buildCharts({ runs: [run] }).charts, "sweep", "speedtest");
    expect(encodingOf(sweep!).x).toMatchObject({ field: "x", title: "op" });
    expect(new Set(rowsOf(sweep!, "m").map((r) => r.x))).toEqual(new Set(["put", "get"]));
  });

  it("a time series on the workload's clock coloured by target draws a line per case and repetition, never one across cases", () => {
    const plan = planOf({
      benchspec: 1,
      name: "hir",
      targets: { disk: { kind: "fs" } },
      workloads: [
        {
          name: "w",
          engine: "fio",
          op: "randwrite",
          bs: ["4KiB", "64KiB"],
          size: "8MiB",
          duration: "2s",
          sample: "1s",
          idle: "5s",
        },
      ],
      report: { charts: [{ workload: "w", x: "elapsed", y: "iops", color: "target" }] },
    });
    const run = runFromRows("hir", plan, synthRows(plan), {
      series: synthSeries(plan, { reps: 1, points: 4 }),
    });
    const [chart] = find(buildCharts({ runs: [run] }).charts, "timeseries", "w");
    const line = layers(chart!).find((layer) => (layer.mark as Spec | undefined)?.type === "line")!;
    expect((line.encoding as Record<string, Spec>).detail).toMatchObject({ field: "l" });
    const points = rowsOf(chart!, "ts");
    // One colour (the one target), two cases: their repetition 1 are two lines.
    expect(new Set(points.map((p) => p.c))).toEqual(new Set(["disk"]));
    const lines = new Set(points.map((p) => p.l));
    expect(lines.size).toBe(2);
    for (const l of lines) expect(new Set(points.filter((p) => p.l === l).map((p) => p.r)).size).toBe(1);
  });

  it("several runs of one spec: colour = run, the run's own dimension moves to facets", async () => {
    const plan = await scenarioPlan("quickstart");
    const a = runFromRows("base", plan, synthRows(plan, { seed: 1 }));
    const b = runFromRows("new", plan, synthRows(plan, { seed: 2 }));
    const { charts } = buildCharts({ runs: [a, b] });
    const [dd] = find(charts, "sweep", "dd-seq");
    expect(encodingOf(dd!).color).toMatchObject({ title: "run", sort: ["base", "new"] });
    expect(facetOf(dd!)).toMatchObject({ title: "op" });
    expect(rowsOf(dd!, "m")).toHaveLength(8);
    await expectCleanRender([a, b]);
  });

  it("the same spec run against different storage in each run: colour = target, run adds nothing", async () => {
    const plan = await scenarioPlan("shared-storage-dd", ["count=4", "parallel=[2, 4]"]);
    const runs = ["nfs", "cephfs", "glusterfs"].map((target) => {
      const cases = plan.cases.filter((c) => c.target === target);
      return runFromRows(target, { ...plan, cases }, synthRows({ ...plan, cases }));
    });
    const view = workloadViews(runs)[0]!;
    expect(view.dims).toEqual(["parallel", "target"]);
    const { charts } = buildCharts({ runs });
    expect(encodingOf(charts[0]!).color).toMatchObject({ title: "target" });
    expect(facetOf(charts[0]!)).toBeUndefined();
  });
});
