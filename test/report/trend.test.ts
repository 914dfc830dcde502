/**
 * Runs over time: the trend of each case across runs of one spec, ordered by start, each run compared with
 * the one before by compare's rule; 1,000 run directories make one page of a few MB that Chromium draws, with
 * the planted regression marked.
 */
import { execa } from "execa";
import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { validateText } from "../../src/engines/language.js";
import type { Plan } from "../../src/plan/types.js";
import { trendOf, type TrendRunInput } from "../../src/results/trend.js";
import { trendCharts, TREND_MAX_POINTS } from "../../src/report/charts/trend.js";
import { FAIL_COLOR } from "../../src/report/charts/common.js";
import { VERSION } from "../../src/cli/context.js";
import { buildReport } from "../../src/report/index.js";
import { runFromRows } from "../../src/report/load.js";
import { latestRun, trendOfRuns } from "../../src/report/trend-runs.js";
import { summarize } from "../../src/rows/stats.js";
import { launchChromium, openReport } from "../support/chromium.js";
import { ROOT } from "../support/spec.js";
import { noise, random, synthRows, writeRunDir } from "./support.js";

let work = "";
afterAll(() => work && rm(work, { recursive: true, force: true }));

const plan: Plan = validateText(
  "trend.yaml",
  stringify({
    benchspec: 1,
    name: "nightly",
    targets: { scratch: { kind: "fs" } },
    workloads: [
      { name: "disk", engine: "fio", op: "randrw", repeat: 3, bs: ["4KiB", "64KiB"], read: [0, 100] },
    ],
  }),
).plan!;

/** Run k of n: one a day from 2026-01-01, on its own commit; `slow` gives a case's throughput factor. */
const start = (k: number) => new Date(Date.UTC(2026, 0, 1) + k * 86_400_000).toISOString();
const commit = (k: number) => createHash("sha1").update(String(k)).digest("hex");

/** provenance.json of run k: its start and the spec's commit. */
const provenance = (k: number) => ({
  spec: {
    name: plan.name,
    file: "nightly.yaml",
    hash: plan.specHash,
    sets: [],
    git: { commit: commit(k), dirty: false },
  },
  host: { hostname: "ci", os: "linux", kernel: "6", cpu: "x", cores: 2, memoryBytes: 1 },
  versions: {},
  targets: {},
  start: start(k),
});

/** A case's figures as the run model gives them, from its samples. */
function caseOf(id: string, samples: number[], failed = 0) {
  return {
    id,
    workload: "disk",
    repetitions: samples.length + failed,
    failed,
    metrics: { throughput: summarize(samples)! },
    samples: { throughput: samples },
  };
}

const steady = (rand: () => number, mean: number, reps = 3) =>
  Array.from({ length: reps }, () => mean * (1 + 0.01 * noise(rand)));

describe("runs over time", () => {
  it("orders runs by start and marks the run that regressed against the one before it", () => {
    const rand = random(3);
    const runs: TrendRunInput[] = Array.from({ length: 10 }, (_, k) => ({
      label: `run-${k}`,
      start: start(k),
      git: { commit: commit(k), dirty: k === 9 },
      cases: [caseOf("a", steady(rand, k >= 6 ? 80e6 : 100e6)), caseOf("b", steady(rand, 50e6))],
    }));
    // Given out of order: the trend follows the start.
    const trend = trendOf("nightly", [...runs].reverse(), {
      threshold: 0.05,
      alpha: 0.05,
      metrics: ["throughput"],
    });
    expect(trend.runs.map((run) => run.label)).toEqual(runs.map((run) => run.label));
    expect(trend.regressions.map((r) => [r.case, r.point.run, r.point.previous])).toEqual([
      ["a", "run-6", "run-5"],
    ]);
    const a = trend.cases.find((c) => c.case === "a")!;
    expect(a.points[6]!.change).toBeCloseTo(-0.2, 1);
    expect(a.points[6]!.changeCi95![1]).toBeLessThan(0);
    // The first run is compared with nothing; the steady ones are not significant changes.
    expect(a.points[0]!.verdict).toBeUndefined();
    expect(
      a.points.filter((point) => point.verdict === "~" || point.verdict === "within threshold"),
    ).toHaveLength(8);
    expect(a.points[9]!).toMatchObject({ commit: commit(9), dirty: true });
  });

  it("never decides on too few repetitions, says a run whose repetitions failed, and skips runs without the case", () => {
    const rand = random(4);
    const trend = trendOf(
      "nightly",
      [
        { label: "r0", start: start(0), cases: [caseOf("a", steady(rand, 100e6, 2))] },
        { label: "r1", start: start(1), cases: [caseOf("a", steady(rand, 50e6, 2))] },
        { label: "r2", start: start(2), cases: [] },
        { label: "r3", start: start(3), cases: [caseOf("a", steady(rand, 50e6, 2), 1)] },
      ],
      { threshold: 0.05, alpha: 0.05, metrics: ["throughput"] },
    );
    const points = trend.cases[0]!.points;
    expect(points.map((point) => [point.run, point.verdict, point.previous])).toEqual([
      ["r0", undefined, undefined],
      ["r1", "too few repetitions", "r0"],
      ["r3", "failed", "r1"],
    ]);
    expect(trend.regressions.map((r) => r.point.run)).toEqual(["r3"]);
  });

  it("draws the first cases that fit in the page's points, and says which were left to the tables", () => {
    const rand = random(5);
    const runs: TrendRunInput[] = Array.from({ length: 500 }, (_, k) => ({
      label: `run-${k}`,
      start: start(k),
      cases: Array.from({ length: 30 }, (_, i) => caseOf(`c${i}`, steady(rand, 100e6))),
    }));
    const trend = trendOf("nightly", runs, { threshold: 0.05, alpha: 0.05, metrics: ["throughput"] });
    const [chart, ...others] = trendCharts(trend, () => "chart");
    expect(others).toHaveLength(0);
    expect(chart!.points).toBeLessThanOrEqual(TREND_MAX_POINTS);
    expect(chart!.points).toBe(Math.floor(TREND_MAX_POINTS / 500) * 500);
    expect(chart!.caption.join(" ")).toContain(
      `Only the first ${Math.floor(TREND_MAX_POINTS / 500)} of 30 cases are drawn`,
    );
  });

  it("runs that say neither when nor from which commit (results files) are drawn in the order given", async () => {
    // The last of one repetition each: no interval, no band, and still no empty scale in any panel.
    const runs = ["first", "second", "third"].map((name, k) =>
      runFromRows(name, plan, synthRows(plan, { seed: k + 1, ...(k === 2 && { reps: 1 }) })),
    );
    const trend = trendOfRuns(runs, { threshold: 0.05, alpha: 0.05, metrics: ["throughput"] })!;
    expect(trend.runs.map((run) => run.label)).toEqual(["first", "second", "third"]);
    const { charts, warnings } = await buildReport([latestRun(runs, trend)], {
      version: VERSION,
      generatedAt: new Date(0),
      trend,
    });
    expect(warnings).toEqual([]);
    const [chart] = charts.filter((c) => c.kind === "trend");
    expect(chart!.title).toBe("disk: throughput by run");
    expect(chart!.caption[0]).toContain("in the order the runs were given");
  });

  it("a directory of runs is its runs: three of one spec make a trend (not with --no-trend), and none is written over", async () => {
    const dir = await mkdtemp(join(tmpdir(), "benchspec-trend-cli-"));
    try {
      for (let k = 0; k < 3; k += 1)
        await writeRunDir(join(dir, `run-${k}`), plan, synthRows(plan, { seed: k + 1 }), {
          "provenance.json": JSON.stringify(provenance(k)),
        });
      const cli = (args: string[]) =>
        execa("node", [join(ROOT, "bin", "benchspec.js"), "report", ...args], { reject: false, all: true });
      const html = join(dir, "trend.html");
      const trend = await cli([dir, "-o", html]);
      expect(trend.exitCode, trend.all).toBe(0);
      expect((await readFile(html, "utf8")).includes('<section id="trend"><h2>Runs over time</h2>')).toBe(
        true,
      );
      const grouped = await cli([dir, "--no-trend", "-o", html]);
      expect(grouped.exitCode, grouped.all).toBe(0);
      const page = await readFile(html, "utf8");
      expect(page.includes('id="trend"')).toBe(false);
      expect(page.includes("run-0 (2026-01-01T00:00:00.000Z)")).toBe(true);
      const over = await cli([dir, "-o", join(dir, "run-1", "results.ndjson")]);
      expect(over.exitCode).toBe(2);
      expect(over.all).toContain("results.ndjson");
      expect((await readFile(join(dir, "run-1", "results.ndjson"), "utf8")).startsWith("{")).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("1,000 runs in a directory make a page of a few MB that Chromium draws, the planted regression marked", async () => {
    work = await mkdtemp(join(tmpdir(), "benchspec-trend-"));
    const runs = join(work, "runs");
    const planted = 700;
    const rand = random(11);
    for (let k = 0; k < 1000; k += 1) {
      const dir = join(runs, `run-${String(k).padStart(4, "0")}`);
      const base = (c: Plan["cases"][number]) => 100e6 * (1 + (c.index % 4));
      // The case read=0/bs=4KiB falls by 30% at the planted run and stays there.
      const rows = synthRows(plan, {
        seed: k + 1,
        throughput: (c) => base(c) * (c.index === 0 && k >= planted ? 0.7 : 1) * (1 + 0.005 * noise(rand)),
      });
      await writeRunDir(dir, plan, rows, { "provenance.json": JSON.stringify(provenance(k)) });
    }
    const html = join(work, "trend.html");
    const reported = await execa("node", [join(ROOT, "bin", "benchspec.js"), "report", runs, "-o", html], {
      reject: false,
      all: true,
    });
    expect(reported.exitCode, reported.all).toBe(0);
    const page = await readFile(html, "utf8");
    expect((await stat(html)).size).toBeLessThan(6e6);
    // The regression table names the planted run against the one before it, and nothing else.
    const at = page.indexOf('id="regressions"');
    const regressions = page.slice(at, page.indexOf("</section>", at));
    expect(regressions).toContain(`<td>run-0${planted}</td>`);
    expect(regressions).toContain(`<td>${commit(planted).slice(0, 10)}</td>`);
    expect(regressions.match(/class="verdict fail"/g)).toHaveLength(1);
    // Below: the latest run in full.
    expect(page.includes("the latest run (run-0999) in full")).toBe(true);

    const context = await launchChromium(join(work, "profile"));
    try {
      const { page: tab, errors, requests } = await openReport(context, html, 120_000);
      expect(errors).toEqual([]);
      // Offline: the page itself and nothing from the network.
      expect(requests.filter((url) => !/^(data|blob):/.test(url))).toEqual([`file://${html}`]);
      const trends = await tab.evaluate<{ failed: boolean; marks: number }[]>(
        `[...document.querySelectorAll('figure[data-kind="trend"]')].map((f) => ({ failed: f.classList.contains("failed"), marks: f.querySelectorAll(".live svg g.role-mark > *").length }))`,
      );
      // One chart, drawn live: by date and by commit, 4 cases × 1,000 runs of points in each.
      expect(trends).toHaveLength(1);
      expect(trends[0]!.failed).toBe(false);
      expect(trends[0]!.marks).toBeGreaterThanOrEqual(8000);
      // The drawn data: 1,000 points per case, the planted run red in its case's panel only.
      const marked = await tab.evaluate<{ points: number; regressions: string[] }>(
        `(() => { const data = JSON.parse(document.getElementById("benchspec-data").textContent); const values = data.charts.find((c) => c.spec.title.text.endsWith("over time and by commit")).spec.data.values; return { points: values.length, regressions: values.filter((v) => v.st === "regression").map((v) => v.f + " " + v.r) }; })()`,
      );
      expect(marked.points).toBe(4000);
      expect(marked.regressions).toEqual([`${plan.cases[0]!.id} run-0${planted}`]);
      // And drawn red: its point in the chart by date and in the one by commit.
      const red = await tab.evaluate<number>(
        `document.querySelectorAll('figure[data-kind="trend"] .live svg g.role-mark > path[fill="${FAIL_COLOR}"]').length`,
      );
      expect(red).toBe(2);
    } finally {
      await context.close();
    }
  }, 300_000);
});
