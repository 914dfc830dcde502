import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Plan } from "../../src/plan/types.js";
import {
  bootstrapRatioCi,
  compareRuns,
  mannWhitney,
  parseThreshold,
  smallestP,
  type Comparison,
} from "../../src/results/compare.js";
import type { ResultRow } from "../../src/results/row.js";
import { runCli } from "../support/cli.js";
import { noise, scenarioPlan, synthRows } from "./support.js";

const temps: string[] = [];
afterAll(() => Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true }))));

/** A run directory with only plan.json and results.ndjson: what `report` and `compare` read. */
async function writeRun(plan: Plan, rows: ResultRow[], name: string): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), "benchspec-compare-"));
  temps.push(root);
  const dir = join(root, name);
  await mkdir(dir);
  await writeFile(
    join(dir, "plan.json"),
    JSON.stringify({ format: "benchspec-plan/1", spec: plan.name, ...plan }),
  );
  await writeFile(join(dir, "results.ndjson"), rows.map((r) => `${JSON.stringify(r)}\n`).join(""));
  return dir;
}

const REPS = 10;
/** Per case a mean throughput (bytes/s) × factor, 2% noise. */
const rowsWith = (plan: Plan, seed: number, factor: (id: string) => number) =>
  synthRows(plan, {
    reps: REPS,
    seed,
    throughput: (c, _rep, rand) => 100e6 * (1 + c.index) * factor(c.id) * (1 + 0.02 * noise(rand)),
  });

describe("compare on synthetic runs", async () => {
  const plan = await scenarioPlan("quickstart");
  const ids = plan.cases.map((c) => c.id);
  const [slower, same, faster] = [ids[0]!, ids[1]!, ids[2]!];
  const base = await writeRun(
    plan,
    rowsWith(plan, 1, () => 1),
    "base",
  );
  const next = await writeRun(
    plan,
    rowsWith(plan, 2, (id) => (id === slower ? 0.8 : id === faster ? 1.25 : 1)),
    "new",
  );

  it("finds a known regression (exit 1), a known non-difference (~) and a known improvement", async () => {
    const result = await runCli(["compare", base, next, "--threshold", "5%"]);
    expect(result.code).toBe(1);
    const line = (id: string) => result.stdout.split("\n").find((l) => l.startsWith(`${id} `))!;
    expect(line(slower)).toMatch(/−2\d\.\d%.*regression$/);
    expect(line(same)).toMatch(/ ~ .* ~$/);
    expect(line(faster)).toMatch(/\+2\d\.\d%.*improvement$/);
    expect(result.stdout).toContain("new vs base: 1 regression, 1 improvement");
  });

  it("exits 0 without a regression, and prints JSON with --json", async () => {
    const ok = await runCli(["compare", base, base]);
    expect(ok.code).toBe(0);
    const json = await runCli(["compare", base, next, "--json"]);
    const comparison = JSON.parse(json.stdout) as Comparison;
    const bySlower = comparison.cases.find((c) => c.case === slower)!;
    expect(bySlower.verdict).toBe("regression");
    expect(bySlower.change).toBeCloseTo(-0.2, 1);
    expect(bySlower.ci95![0]).toBeLessThan(bySlower.change!);
    expect(bySlower.ci95![1]).toBeGreaterThan(bySlower.change!);
    expect(bySlower.p).toBeLessThan(0.001);
    expect(comparison.cases.find((c) => c.case === same)!.verdict).toBe("~");
    expect(comparison.regressions).toBe(1);
    expect(comparison.improvements).toBe(1);
  });

  it("a larger threshold forgives the 20% drop; latency counts a rise as the regression", async () => {
    expect((await runCli(["compare", base, next, "--threshold", "30%"])).code).toBe(0);
    // Lower throughput means higher latency in the synthetic rows: p99 rises for the slower case.
    const latency = await runCli(["compare", base, next, "--metric", "p99", "--json"]);
    const cases = (JSON.parse(latency.stdout) as Comparison).cases;
    expect(cases.filter((c) => c.verdict === "regression").map((c) => c.case)).toEqual([]);
    expect(latency.code).toBe(0);
    const [fio] = plan.cases.filter((c) => c.engine === "fio");
    const fioNext = await writeRun(
      plan,
      rowsWith(plan, 3, (id) => (id === fio!.id ? 0.5 : 1)),
      "fio-new",
    );
    const p99 = await runCli(["compare", base, fioNext, "--metric", "p99", "--json"]);
    expect(p99.code).toBe(1);
    expect((JSON.parse(p99.stdout) as Comparison).cases.find((c) => c.case === fio!.id)).toMatchObject({
      verdict: "regression",
      higherIsBetter: false,
    });
  });

  it("draws the comparison in a report", async () => {
    const out = join(temps[0]!, "compare.html");
    const result = await runCli(["report", "--compare", base, next, "-o", out]);
    expect(result.code).toBe(0);
    const html = await (await import("node:fs/promises")).readFile(out, "utf8");
    expect(html).toContain('data-kind="compare"');
    expect(html).toContain('<span class="verdict fail">regression</span>');
    expect(html).toContain('<span class="verdict pass">improvement</span>');
  });

  it("rejects bad input with exit 2", async () => {
    expect((await runCli(["compare", base, join(base, "missing")])).code).toBe(2);
    expect((await runCli(["compare", base, next, "--threshold", "five"])).code).toBe(2);
    expect((await runCli(["compare", base, next, "--metric", "speed"])).code).toBe(2);
  });
});

describe("the statistics of compare", () => {
  it("Mann–Whitney U: exact p for small samples, normal approximation with ties", () => {
    expect(mannWhitney([1, 2, 3], [4, 5, 6])).toEqual({ u: 0, p: 0.1 });
    expect(mannWhitney([1, 2, 3, 4], [5, 6, 7, 8]).p).toBeCloseTo(2 / 70, 10);
    expect(mannWhitney([1, 3, 5], [2, 4, 6]).p).toBeCloseTo(0.7, 10);
    expect(smallestP(3, 3)).toBeCloseTo(0.1);
    expect(smallestP(4, 4)).toBeCloseTo(2 / 70);
    const tied = mannWhitney([1, 1, 2, 2, 3, 3], [3, 3, 4, 4, 5, 5]);
    expect(tied.p).toBeGreaterThan(0.001);
    expect(tied.p).toBeLessThan(0.05);
    expect(mannWhitney([2, 2, 2], [2, 2, 2]).p).toBe(1);
  });

  it("too few repetitions say so instead of a silent ~", () => {
    const c = compareRuns(
      {
        label: "a",
        cases: [
          { id: "x", workload: "w", repetitions: 3, failed: 0, samples: { throughput: [100, 101, 102] } },
        ],
      },
      {
        label: "b",
        cases: [{ id: "x", workload: "w", repetitions: 3, failed: 0, samples: { throughput: [50, 51, 52] } }],
      },
    );
    expect(c.cases[0]).toMatchObject({
      verdict: "~",
      note: "3 vs 3 repetitions cannot reach p < 0.05; use more repetitions",
    });
  });

  it("a case that fails in the new run is a regression; cases in one run only are listed", () => {
    const ok = { workload: "w", repetitions: 5, failed: 0, samples: { throughput: [1, 2, 3, 4, 5] } };
    const c = compareRuns(
      {
        label: "a",
        cases: [
          { id: "x", ...ok },
          { id: "gone", ...ok },
        ],
      },
      {
        label: "b",
        cases: [
          { id: "x", ...ok, failed: 2 },
          { id: "added", ...ok },
        ],
      },
    );
    expect(c.cases.map((x) => [x.case, x.verdict])).toEqual([
      ["x", "failed"],
      ["gone", "only in base"],
      ["added", "only in new"],
    ]);
    expect(c.regressions).toBe(1);
  });

  it("bootstrap interval is seeded (the same every time) and brackets the ratio", () => {
    const a = [100, 102, 98, 101, 99, 100, 103, 97];
    const b = a.map((x) => x * 1.1);
    const ci = bootstrapRatioCi(a, b, 2000, 1)!;
    expect(bootstrapRatioCi(a, b, 2000, 1)).toEqual(ci);
    expect(ci[0]).toBeLessThan(0.1 + 1e-9);
    expect(ci[1]).toBeGreaterThan(0.1 - 1e-9);
    expect(parseThreshold("5%")).toBe(0.05);
    expect(parseThreshold("7.5")).toBe(0.075);
    expect(parseThreshold("0.1")).toBe(0.1);
  });
});
