import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RunModel, type RowLike } from "../../src/results/model/accumulator.js";
import { SERIES_BINS } from "../../src/results/model/series.js";
import { loadInputs, runFromRows } from "../../src/report/load.js";
import { readNdjson } from "../../src/results/ndjson.js";
import { caseTable, expectTable } from "../../src/report/tables.js";
import { summaryCsv } from "../../src/report/csv.js";
import { workloadViews } from "../../src/report/view.js";
import { METRIC_INFO } from "../../src/rows/metrics.js";
import { summarize } from "../../src/rows/stats.js";
import { buildSummary } from "../../src/results/summary.js";
import { METRICS } from "../../src/rows/metric-names.js";
import { scenarioPlan, synthRows } from "./support.js";
import { tempDirs } from "../support/temp.js";

const tempDir = tempDirs("benchspec-report-");

/** A measured row of a case "c", ok, without metrics. */
const oneRow = {
  case: "c",
  workload: "w",
  target: "t",
  engine: "fio",
  op: "read",
  params: {},
  repetition: 1,
  warmup: false,
  ok: true,
};

describe("aggregation before charting", () => {
  it("gives the same per-case statistics and expect results as summary.json", async () => {
    const plan = await scenarioPlan("quickstart");
    const rows = synthRows(plan, { failed: (c, rep) => c.id === "fio-4k.scratch.randwrite" && rep === 2 });
    rows.push({ ...rows[0]!, warmup: true, throughput: 1, repetition: 1 });
    const run = runFromRows("q", plan, rows);
    const summary = buildSummary(plan, rows);
    for (const expected of summary.cases) {
      const actual = run.cases.find((c) => c.id === expected.id)!;
      expect(actual.repetitions).toBe(expected.repetitions);
      expect(actual.failed).toBe(expected.failed);
      expect(actual.errors).toEqual(expected.errors);
      expect(actual.metrics.throughput).toEqual(expected.metrics.throughput);
      expect(actual.metrics.p99).toEqual(expected.metrics.p99);
      expect(actual.warnings).toEqual(expected.warnings);
    }
    expect(run.expect).toEqual(summary.expect);
    expect(run.rows).toMatchObject({ total: rows.length, warmup: 1, failed: 1 });
  });

  it("a failed repetition run again (--resume) counts as its last row, also across merged partials", () => {
    const row = (repetition: number, ok: boolean) => ({
      ...oneRow,
      repetition,
      ok,
      throughput: 10 * repetition,
      iops: 1,
      seconds: 1,
      ...(!ok && { error: `boom ${repetition}` }),
    });
    // Rows as results.ndjson holds them after a resume: the failures, then the retries.
    const rows = [row(1, false), row(2, false), row(3, true), row(1, true), row(2, false)];
    const whole = new RunModel();
    rows.forEach((r) => whole.addRow(r));
    const first = new RunModel();
    rows.slice(0, 3).forEach((r) => first.addRow(r));
    const second = new RunModel();
    rows.slice(3).forEach((r) => second.addRow(r));
    first.merge(second.partial().partial);
    for (const acc of [whole, first]) {
      const [c] = acc.finish([]).cases;
      expect(c).toMatchObject({ repetitions: 3, failed: 1, errors: ["boom 2"] });
      expect(c!.metrics.throughput!.n).toBe(2);
    }
  });

  it("merges partials (flat typed arrays) into what one accumulator over all the rows gives", () => {
    const plan = [
      { id: "a", workload: "w", target: "t", engine: "fio", op: "read", params: { bs: 1 } },
      {
        id: "b",
        workload: "w",
        target: "t",
        engine: "fio",
        op: "read",
        params: { autotune: { param: "iodepth" } },
      },
    ];
    const row = (id: string, repetition: number, extra: Record<string, unknown> = {}): RowLike => ({
      ...oneRow,
      case: id,
      repetition,
      throughput: 10 * repetition,
      iops: repetition,
      seconds: 1,
      latency: { mean: 2, p50: 1, p90: 2, p99: 3, "p99.9": 4 },
      client: { cpuSeconds: 1, cpuPerGiB: 0.5 * repetition, eventLoopUtilization: 0.1 },
      ...(extra as Partial<RowLike>),
    });
    const rows = [
      row("a", 1),
      row("b", 1, { params: { iodepth: 4 } }),
      row("x", 1, { ok: false, error: "boom" }),
      row("a", 2, { steady: { attained: true } }),
      row("b", 2, { params: { iodepth: 8 }, ttfb: { p50: 1, p99: 2 } }),
      row("x", 1),
      row("x", 2, { ok: false, error: "bang" }),
      row("a", 3, { jobs: [{ throughput: 1 }, { throughput: 2 }] }),
    ];
    const whole = new RunModel({ cases: plan });
    rows.forEach((r) => whole.addRow(r));
    const merged = new RunModel({ cases: plan });
    rows.slice(0, 2).forEach((r) => merged.addRow(r));
    const parts = [rows.slice(2, 5), rows.slice(5)].map((slice) => {
      const acc = new RunModel({ cases: plan });
      slice.forEach((r) => acc.addRow(r));
      return acc.partial().partial;
    });
    expect(merged.canMerge(parts)).toBe(true);
    parts.forEach((part) => merged.merge(part));
    expect(merged.rowsTotal).toBe(whole.rowsTotal);
    expect(merged.finish([])).toStrictEqual(whole.finish([]));
  });

  it("reads every metric from a row as the metrics table does (its accessors are unrolled there)", () => {
    const row = {
      ...oneRow,
      throughput: 1,
      iops: 2,
      latency: { mean: 3, p50: 4, p90: 5, p99: 6, "p99.9": 7 },
      seconds: 8,
    };
    const acc = new RunModel();
    acc.addRow(row);
    const [c] = acc.finish([]).cases;
    for (const metric of METRICS) expect(c!.samples[metric]).toEqual([METRIC_INFO[metric].of(row)]);
  });

  it("summarizes sets of hundreds of thousands of values", () => {
    const values = Array.from({ length: 200_000 }, (_, i) => 100 + (i % 997) / 10);
    const big = summarize(values)!;
    const small = summarize(values.slice(0, 40_000))!;
    expect(big.n).toBe(200_000);
    expect(big.min).toBe(100);
    expect(big.max).toBeCloseTo(199.6);
    expect(big.median).toBeCloseTo(median(values));
    expect(big.ci95![1] - big.ci95![0]).toBeLessThan(small.ci95![1] - small.ci95![0]);
    const some = Array.from({ length: 5001 }, (_, i) => 100 + Math.sin(i) * 3 + (i % 500 === 0 ? 50 : 0));
    expect(summarize(some)!.outliers).toEqual(Array.from({ length: 11 }, (_, i) => i * 500));
  });

  it("downsamples a long series to a bounded number of bins, pooling repetitions", () => {
    const acc = new RunModel({
      cases: [{ id: "c", workload: "w", target: "t", engine: "fio", op: "write", params: { sample: 0.01 } }],
    });
    for (let rep = 1; rep <= 3; rep += 1) {
      for (let i = 0; i < 100_000; i += 1)
        acc.addPoint({ case: "c", repetition: rep, t: i * 0.01, throughput: 1000 + rep, iops: 10 });
    }
    const [series] = acc.finish([]).series;
    expect(series!.points.length).toBeLessThanOrEqual(SERIES_BINS);
    expect(series!.rawPoints).toBe(300_000);
    expect(series!.repetitions).toBe(3);
    expect(series!.points[5]).toMatchObject({ throughput: 1002, throughputMin: 1001, throughputMax: 1003 });
  });

  it("draws a case run on several hosts from its summed series, not from each host's points", () => {
    const acc = new RunModel({
      cases: [{ id: "c", workload: "w", target: "t", engine: "s3", op: "get", params: { sample: 1 } }],
    });
    for (const t of [1, 2]) {
      acc.addPoint({ case: "c", repetition: 1, t, throughput: 300, iops: 3 });
      for (const host of ["a", "b"])
        acc.addPoint({ case: "c", repetition: 1, t, throughput: 150, iops: 1.5, host });
    }
    const [series] = acc.finish([]).series;
    expect(series!.points.map((p) => [p.t, p.throughput, p.iops])).toEqual([
      [1, 300, 3],
      [2, 300, 3],
    ]);
    expect(series!.rawPoints).toBe(2);
  });

  it("merges fio's bandwidth and IOPS samples logged a millisecond apart, and drops warm-up series", () => {
    const acc = new RunModel({
      cases: [
        {
          id: "c",
          workload: "w",
          target: "t",
          engine: "fio",
          op: "randread",
          params: { sample: 0.5, warmup: 1 },
        },
      ],
    });
    // The warm-up's series (repetition 1), then the measured repetition 1: t starts again.
    for (const rep of [1, 1]) {
      for (const t of [0.5, 1, 1.5]) {
        acc.addPoint({ case: "c", repetition: rep, t, throughput: 4096 * 100, iops: 0 });
        acc.addPoint({ case: "c", repetition: rep, t: t + 0.001, throughput: 0, iops: 100 });
      }
    }
    acc.addPoint({ case: "c", repetition: 2, t: 0.502, throughput: 4096 * 300, iops: 300 });
    const [series] = acc.finish([]).series;
    expect(series!.points.map((p) => [p.t.toFixed(2), p.throughput, p.iops])).toEqual([
      ["0.50", 4096 * 200, 200],
      ["1.00", 4096 * 100, 100],
      ["1.50", 4096 * 100, 100],
    ]);
    expect(series!.rawPoints).toBe(7);
  });

  it("keeps per-round statistics and the knee for autotuned cases", async () => {
    const plan = await scenarioPlan("minio-speedtest");
    const c = plan.cases.find((x) => x.workload === "speedtest" && x.op === "put")!;
    const gains: Record<number, number> = { 4: 1e9, 8: 1.8e9, 16: 2.6e9, 32: 2.65e9, 64: 2.66e9 };
    const rows = Object.entries(gains).flatMap(([concurrency, throughput]) =>
      synthRows({ ...plan, cases: [c] }, { reps: 3, throughput: () => throughput }).map((row) => ({
        ...row,
        params: { ...row.params, concurrency: Number(concurrency) },
      })),
    );
    const run = runFromRows("m", { ...plan, cases: [c] }, rows);
    const tuned = run.cases[0]!.autotune!;
    expect(tuned.rounds.map((r) => r.value)).toEqual([4, 8, 16, 32, 64]);
    expect(tuned.knee).toBe(16);
    expect(run.cases[0]!.metrics.throughput!.median).toBe(2.6e9);
    expect(run.cases[0]!.warnings[0]).toContain("concurrency = 16");
    expect(run.cases[0]!.params.concurrency).toBe(16); // tables and sweep charts show the chosen value
  });

  it("client CPU, event-loop utilization and time to first byte: medians in the case table and the CSV", async () => {
    const plan = await scenarioPlan("object-upload-download");
    const cpu = [2, 4, 3, 0]; // the 0 (no bytes moved) is not a measurement
    const elu = [0.5, 0.7, 0.6, 0.6];
    const ttfb50 = [0.001, 0.003, 0.002, 0.002];
    const ttfb99 = [0.01, 0.03, 0.02, 0.02];
    const rows = synthRows(plan, { reps: 4 }).map((row) => {
      const i = row.repetition - 1;
      return {
        ...row,
        client: { cpuSeconds: 1, cpuPerGiB: cpu[i]!, eventLoopUtilization: elu[i]!, threads: 1 },
        ...(row.op === "get" && { ttfb: { p50: ttfb50[i], p99: ttfb99[i] } }),
      };
    });
    // A failed repetition's numbers do not count.
    rows.push({ ...rows[0]!, repetition: 5, ok: false, client: { ...rows[0]!.client, cpuPerGiB: 1e6 } });
    const run = runFromRows("o", plan, rows);
    const get = run.cases.find((c) => c.op === "get")!;
    const put = run.cases.find((c) => c.op === "put")!;
    expect(get.client).toEqual({ cpuPerGiB: 3, eventLoopUtilization: 0.6 });
    expect(get.ttfb).toEqual({ p50: 0.002, p99: 0.02 });
    expect(put.client).toEqual({ cpuPerGiB: 3, eventLoopUtilization: 0.6 });
    expect(put.ttfb).toBeUndefined();

    const view = workloadViews([run]).find((v) => v.entries.some((e) => e.c.id === get.id))!;
    const html = caseTable(view, [], false);
    const header = [...html.matchAll(/<th[^>]*>([^<]*)<\/th>/g)].map((m) => m[1]);
    for (const title of [
      "TTFB p50 median",
      "TTFB p99 median",
      "client CPU per GiB median",
      "event loop busy median",
    ])
      expect(header).toContain(title);
    const rowOf = (id: string) =>
      [...html.matchAll(/<tr>([\s\S]*?)<\/tr>/g)]
        .map((m) => m[1]!)
        .find((r) => r.includes(`<code>${id}</code>`))!;
    const cellsOf = (id: string) => [...rowOf(id).matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((m) => m[1]);
    const at = (title: string) => header.indexOf(title);
    const getCells = cellsOf(get.id);
    expect(getCells[at("TTFB p50 median")]).toBe("2.000 ms");
    expect(getCells[at("TTFB p99 median")]).toBe("20.00 ms");
    expect(getCells[at("client CPU per GiB median")]).toBe("3.000 s/GiB");
    expect(getCells[at("event loop busy median")]).toBe("60.0%");
    expect(cellsOf(put.id)[at("TTFB p50 median")]).toBe("–");

    const [csvHeader, ...csvLines] = summaryCsv([run]).trim().split("\n");
    const columns = csvCells(csvHeader!);
    const csvRow = csvLines.map(csvCells).find((cells) => cells[2] === get.id)!;
    expect(csvRow[columns.indexOf("ttfb.p50.median")]).toBe("0.002");
    expect(csvRow[columns.indexOf("ttfb.p99.median")]).toBe("0.02");
    expect(csvRow[columns.indexOf("client.cpuPerGiB.median")]).toBe("3");
    expect(csvRow[columns.indexOf("client.eventLoopUtilization.median")]).toBe("0.6");

    // Rows without them (dd, fio): no such columns.
    const quick = runFromRows(
      "q",
      await scenarioPlan("quickstart"),
      synthRows(await scenarioPlan("quickstart")),
    );
    expect(summaryCsv([quick])).not.toMatch(/ttfb|client\./);
    for (const v of workloadViews([quick]))
      expect(caseTable(v, [], false)).not.toMatch(/TTFB|client CPU|event loop/);
  });

  it("says how each metric is computed, and shows an interrupted run's unreached expectations as not run", async () => {
    const plan = await scenarioPlan("quickstart");
    const expected = plan.expect[0]!.cases[0]!;
    const run = runFromRows(
      "q",
      plan,
      synthRows(plan).filter((r) => r.case !== expected),
    );
    const tooltips = workloadViews([run]).map((v) =>
      Object.fromEntries(
        [...caseTable(v, [], false).matchAll(/<th title="([^"]*)">([^<]*)<\/th>/g)].map((m) => [m[2], m[1]]),
      ),
    );
    expect(tooltips[0]!["throughput median"]).toMatch(
      /^per repetition: bytes moved ÷ the repetition&#39;s seconds/,
    );
    const expects = expectTable([run]);
    expect(expects).toContain("<td>not run</td>");
    expect(expects).not.toContain(">fail<");
  });

  it("streams NDJSON: skips a torn last line and non-JSON lines, rejects a broken line in the middle", async () => {
    const dir = await tempDir();
    const file = join(dir, "r.ndjson");
    await writeFile(file, 'progress text\n{"a":1}\n\n{"a":2}\n{"a":');
    const seen: unknown[] = [];
    const stats = await readNdjson(file, (row) => seen.push(row));
    expect(seen).toEqual([{ a: 1 }, { a: 2 }]);
    expect(stats).toEqual({ rows: 2, skipped: 1, tornTail: true });
    await writeFile(file, '{"a":1}\n{"a":\n{"a":3}\n');
    await expect(readNdjson(file, () => {})).rejects.toThrow(/r\.ndjson:2: not a JSON row/);
  });

  it("loads a compiled script's output with the plan.json beside it, and without it", async () => {
    const plan = await scenarioPlan("quickstart");
    const dir = await tempDir();
    const rows = synthRows(plan).map((row) => ({ ...row, source: "shell" as const }));
    await writeFile(
      join(dir, "out.ndjson"),
      `benchspec: progress\n${rows.map((r) => JSON.stringify(r)).join("\n")}\n`,
    );
    const [withoutPlan] = await loadInputs([join(dir, "out.ndjson")]);
    expect(withoutPlan!.planDerived).toBe(true);
    expect(withoutPlan!.cases.map((c) => c.id)).toEqual(plan.cases.map((c) => c.id));
    expect(withoutPlan!.rows.sources).toEqual(["shell"]);
    // What it lacks without the plan, and how to have it, is said.
    expect(withoutPlan!.notes).toContainEqual(
      expect.stringMatching(
        /^no plan\.json of this spec beside out\.ndjson: .*keep the script's output there/,
      ),
    );
    await writeFile(
      join(dir, "plan.json"),
      JSON.stringify({ format: "benchspec-plan/1", spec: plan.name, ...plan }),
    );
    const [withPlan] = await loadInputs([join(dir, "out.ndjson")]);
    expect(withPlan!.planDerived).toBe(false);
    expect(withPlan!.expect).toHaveLength(1);
    expect(withPlan!.notes).toEqual(["out.ndjson: 1 non-JSON line(s) skipped"]);
  });
});

function median(values: number[]) {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

/** The cells of one CSV line (quoted cells may hold commas and doubled quotes). */
function csvCells(line: string): string[] {
  return [...line.matchAll(/(?:^|,)("(?:[^"]|"")*"|[^,]*)/g)].map((m) =>
    m[1]!.startsWith('"') ? m[1]!.slice(1, -1).replaceAll('""', '"') : m[1]!,
  );
}
