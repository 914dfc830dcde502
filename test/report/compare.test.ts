import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Plan } from "../../src/plan/types.js";
import {
  checkComparable,
  compareRuns,
  DEFAULT_COMPARE,
  parseThreshold,
  type ComparedRun,
  type Comparison,
} from "../../src/results/compare.js";
import { bootstrapRatioCi, mannWhitney, smallestP } from "../../src/results/significance.js";
import type { ResultRow } from "../../src/rows/row.js";
import { runCli } from "../support/cli.js";
import { noise, random, scenarioPlan, synthRows } from "./support.js";

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
    // A change that is not significant is still printed, marked "~".
    expect(line(same)).toMatch(/ [+−]\d\.\d% \(~\) .* ~$/);
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
    // 10 vs 10 repetitions: the rank test decides.
    expect(bySlower.test).toBe("mann-whitney");
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

describe("compare with the specs' 3 repetitions", async () => {
  const plan = await scenarioPlan("quickstart");
  const ids = plan.cases.map((c) => c.id);
  const [dropped, noisy] = [ids[0]!, ids[1]!];
  const mean = (c: Plan["cases"][number]) => 100e6 * (1 + c.index);
  // Overlapping values whose medians differ by −10%: the interval of the change spans 0.
  const noisyBase = [1, 1.3, 0.7];
  const noisyNew = [0.9, 1.25, 0.6];
  const rows = (seed: number, drop: number, noisyValues: number[]) =>
    synthRows(plan, {
      reps: 3,
      seed,
      throughput: (c, rep, rand) =>
        c.id === noisy
          ? mean(c) * noisyValues[rep - 1]!
          : mean(c) * (c.id === dropped ? drop : 1) * (1 + 0.02 * noise(rand)),
    });
  const base = await writeRun(plan, rows(1, 1, noisyBase), "base3");
  const next = await writeRun(plan, rows(2, 0.5, noisyNew), "new3");

  it("a 50% drop is a regression decided by the confidence interval (exit 1)", async () => {
    const result = await runCli(["compare", base, next]);
    expect(result.code).toBe(1);
    const line = (id: string) => result.stdout.split("\n").find((l) => l.startsWith(`${id} `))!;
    expect(line(dropped)).toMatch(
      /−(49|50|51)\.\d% .*regression \(decided by the 95% CI: 3 vs 3 repetitions cannot reach p < 0\.05 in the Mann-Whitney test\)$/,
    );
    expect(result.stdout).toContain("new3 vs base3: 1 regression,");
    const json = JSON.parse((await runCli(["compare", base, next, "--json"])).stdout) as Comparison;
    const c = json.cases.find((x) => x.case === dropped)!;
    expect(c).toMatchObject({ verdict: "regression", test: "ci", significant: true });
    expect(c.change).toBeCloseTo(-0.5, 1);
    expect(c.ci95![1]).toBeLessThan(0);
    // The rank test alone could not have said so.
    expect(c.p).toBeGreaterThanOrEqual(0.1);
  });

  it("overlapping noisy values are ~, with the change still printed (exit 0 without the drop)", async () => {
    const result = await runCli(["compare", base, next, "--json"]);
    const c = (JSON.parse(result.stdout) as Comparison).cases.find((x) => x.case === noisy)!;
    expect(c).toMatchObject({ verdict: "~", test: "ci", significant: false });
    expect(c.change).toBeCloseTo(-0.1, 5);
    expect(c.ci95![0]).toBeLessThan(0);
    expect(c.ci95![1]).toBeGreaterThan(0);
    const sameDrop = await writeRun(plan, rows(3, 1, noisyNew), "new3-nodrop");
    const table = await runCli(["compare", base, sameDrop]);
    expect(table.code).toBe(0);
    const line = table.stdout.split("\n").find((l) => l.startsWith(`${noisy} `))!;
    expect(line).toMatch(/ −10\.0% \(~\) .* ~ \(decided by the 95% CI: /);
    expect(table.stdout).toContain("0 regressions");
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

  it("too few repetitions for the rank test: the interval decides; below 3 nothing decides", () => {
    const one = (id: string, throughput: number[]) => ({
      id,
      workload: "w",
      repetitions: throughput.length,
      failed: 0,
      samples: { throughput },
    });
    const c = compareRuns(
      { label: "a", cases: [one("x", [100, 101, 102]), one("y", [100]), one("z", [100, 101, 102])] },
      { label: "b", cases: [one("x", [50, 51, 52]), one("y", [50]), one("z", [101, 102, 103])] },
    );
    expect(c.cases[0]).toMatchObject({
      verdict: "regression",
      test: "ci",
      significant: true,
      note: "decided by the 95% CI: 3 vs 3 repetitions cannot reach p < 0.05 in the Mann-Whitney test",
    });
    expect(c.cases[1]).toMatchObject({
      verdict: "too few repetitions",
      significant: false,
      note: "1 vs 1 repetitions: too few repetitions to decide (at least 3 on each side)",
    });
    expect(c.cases[1]!.test).toBeUndefined();
    // A 1% shift whose resampled medians overlap: not significant.
    expect(c.cases[2]).toMatchObject({ verdict: "~", test: "ci", significant: false });
    expect(c.regressions).toBe(1);
    // A stricter alpha widens the deciding interval (99%); 4 vs 4 goes back to Mann–Whitney.
    const strict = compareRuns(
      { label: "a", cases: [one("x", [100, 101, 102])] },
      { label: "b", cases: [one("x", [50, 51, 52])] },
      { ...DEFAULT_COMPARE, alpha: 0.01 },
    );
    expect(strict.cases[0]!.note).toMatch(/^decided by the 99% CI: /);
    const four = compareRuns(
      { label: "a", cases: [one("x", [100, 101, 102, 103])] },
      { label: "b", cases: [one("x", [50, 51, 52, 53])] },
    );
    expect(four.cases[0]).toMatchObject({ verdict: "regression", test: "mann-whitney" });
    expect(four.cases[0]!.note).toBeUndefined();
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

  it("large samples draw one seed's normals once for every case: the interval is the seed's, whatever came before", () => {
    const draw = (n: number, scale: number) =>
      Array.from({ length: n }, (_, i) => scale * (100 + 8 * Math.sin(i * 12.9898)));
    const [a, b] = [draw(200, 1), draw(300, 1.05)];
    const first = bootstrapRatioCi(a, b, 1000, 5)!;
    // Other seeds and longer draws in between (the kept normals are replaced, or reused as a prefix).
    bootstrapRatioCi(a, b, 1000, 6);
    bootstrapRatioCi(a, b, 4000, 5);
    expect(bootstrapRatioCi(a, b, 1000, 5)).toEqual(first);
    expect(bootstrapRatioCi(a, b, 1000, 6)).not.toEqual(first);
    expect(first[0]).toBeLessThan(0.05 + 1e-9);
    expect(first[1]).toBeGreaterThan(0.05 - 1e-9);
  });

  it("an interval after a longer one is its own: the resampled ratios' reused buffer holds the longer one's past its end", () => {
    const [a, b] = [
      [10, 11, 9, 10.5, 9.8, 10.2, 10.1],
      [11, 12, 10.4, 11.3, 10.9, 11.6, 11.1],
    ];
    const first = bootstrapRatioCi(a, b, 300, 3)!;
    bootstrapRatioCi([30, 40, 50], [1, 2, 3], 5000, 3); // ratios near −0.95: below any of the first
    expect(bootstrapRatioCi(a, b, 300, 3)).toEqual(first);
    expect(first[0]).toBeGreaterThan(0);
    expect(first[1]).toBeLessThan(0.3);
  });
});

describe("compare refuses to decide on too little or broken input", async () => {
  const plan = await scenarioPlan("quickstart");
  const [first, second] = [plan.cases[0]!.id, plan.cases[1]!.id];
  const rows = (reps: number, seed: number, factor = 1) =>
    synthRows(plan, { reps, seed, throughput: (c) => 100e6 * (1 + c.index) * factor * (1 + 0.01 * seed) });
  const base = await writeRun(plan, rows(5, 1), "base");
  /** A copy of the base run whose results.ndjson is `text`. */
  const withResults = async (name: string, text: string) => {
    const dir = await writeRun(plan, [], name);
    await writeFile(join(dir, "results.ndjson"), text);
    return dir;
  };
  const baseText = await readFile(join(base, "results.ndjson"), "utf8");

  it("2 vs 2 repetitions: too few to decide, never a regression (exit 0), in the table and the JSON", async () => {
    const base2 = await writeRun(plan, rows(2, 1), "base2");
    const next2 = await writeRun(plan, rows(2, 2, 0.5), "new2");
    const result = await runCli(["compare", base2, next2]);
    expect(result.code).toBe(0);
    const line = result.stdout.split("\n").find((l) => l.startsWith(`${first} `))!;
    expect(line).toMatch(
      /−4\d\.\d% \(~\) .* too few repetitions \(2 vs 2 repetitions: too few repetitions to decide/,
    );
    expect(result.stdout).toMatch(
      /0 regressions, 0 improvements, \d+ comparisons with too few repetitions to decide/,
    );
    const json = JSON.parse((await runCli(["compare", base2, next2, "--json"])).stdout) as Comparison;
    expect(json.cases.every((c) => c.verdict === "too few repetitions" && !c.significant)).toBe(true);
    expect(json).toMatchObject({ regressions: 0, tooFew: json.cases.length, pass: true });
  });

  it("an empty, NUL-filled, truncated or foreign-line results file is an error naming it (exit 2)", async () => {
    const lines = baseText.split("\n");
    const broken: [string, string, RegExp][] = [
      ["empty", "", /empty: no result rows \(the results are empty\)/],
      ["nul", "\0".repeat(4096), /nul\/results\.ndjson:1: not a JSON row \(1 such line/],
      [
        "nul-line",
        `${lines[0]}\n\0\0\0\n${lines.slice(1).join("\n")}`,
        /nul-line\/results\.ndjson:2: not a JSON row/,
      ],
      ["torn", baseText.slice(0, -20), /torn\/results\.ndjson: the last line is cut off/],
      [
        "not-a-row",
        `${baseText}{"hello":1}\n`,
        /not-a-row\/results\.ndjson:\d+: JSON that is not a result row/,
      ],
    ];
    const foreign = rows(5, 2).map((r) => JSON.stringify({ ...r, specHash: "0000000000000000" }));
    broken.push([
      "two-specs",
      `${baseText}${foreign.join("\n")}\n`,
      /two-specs\/results\.ndjson: rows of 2 different specs/,
    ]);
    for (const [name, text, message] of broken) {
      const result = await runCli(["compare", base, await withResults(name, text)]);
      expect(result.code, name).toBe(2);
      expect(result.stderr, name).toMatch(message);
    }
  });

  it("rows of another spec are refused unless --allow-spec-change; no common case is refused", async () => {
    const other = await writeRun({ ...plan, specHash: "0000000000000000" }, rows(5, 2), "other");
    const refused = await runCli(["compare", base, other]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /other holds rows of spec quickstart \(0000000000000000\), .* --allow-spec-change/,
    );
    expect((await runCli(["compare", base, other, "--allow-spec-change"])).code).toBe(0);
    const renamed = rows(5, 2).map((r) => ({ ...r, case: `${r.case}-renamed` }));
    const disjoint = await withResults("disjoint", renamed.map((r) => `${JSON.stringify(r)}\n`).join(""));
    const none = await runCli(["compare", base, disjoint]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/have no case in common/);
  });

  it("rows of the compiled script are not compared with rows of `run` (exit 2)", async () => {
    const shell = rows(5, 2).map((r) => ({ ...r, source: "shell" as const }));
    const result = await runCli([
      "compare",
      base,
      await withResults("shell", shell.map((r) => `${JSON.stringify(r)}\n`).join("")),
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /measured by `benchspec run`, .*shell by the compiled script: their numbers are not comparable/,
    );
  });

  it("a case missing from the new run fails the gate (exit 1) unless --allow-missing", async () => {
    const without = await writeRun(
      plan,
      rows(5, 2).filter((r) => r.case !== second),
      "without",
    );
    const result = await runCli(["compare", base, without, "--json"]);
    expect(result.code).toBe(1);
    const json = JSON.parse(result.stdout) as Comparison;
    expect(json).toMatchObject({ regressions: 0, missing: [second], pass: false });
    expect(json.cases.find((c) => c.case === second)).toMatchObject({ verdict: "only in base" });
    const text = await runCli(["compare", base, without]);
    expect(text.stdout).toContain("1 case of the base missing from the new run");
    expect(text.stdout).toMatch(/: fails$/m);
    expect((await runCli(["compare", base, without, "--allow-missing"])).code).toBe(0);
  });

  it("another engine for a case is refused; another host is a warning", () => {
    const run = (host: string, engine: string): ComparedRun => ({
      label: host,
      path: `runs/${host}`,
      plan: { name: "s", specHash: "h" },
      rows: { total: 3, measured: 3, sources: ["run"] },
      provenance: { host: { hostname: host } },
      notes: [],
      cases: [
        { id: "x", workload: "w", engine, repetitions: 3, failed: 0, samples: { throughput: [1, 2, 3] } },
      ],
    });
    expect(() => checkComparable(run("a", "fio"), run("a", "dd"))).toThrow(
      "case x was run by fio in runs/a but by dd in runs/a",
    );
    expect(checkComparable(run("a", "fio"), run("b", "fio"))).toEqual([
      "a ran on a, b on b: a change may be the machine's, not the storage's",
    ]);
  });
});

describe("compare statistics on large samples", () => {
  it("the bootstrap interval of a large sample is as narrow as its size makes it", () => {
    const rand = random(7);
    const a = Array.from({ length: 10_000 }, () => 0.9 + 0.2 * rand());
    const b = a.map((x) => x * 1.1);
    const [low, high] = bootstrapRatioCi(a, b, 2000, 1)!;
    expect(low).toBeLessThan(0.1);
    expect(high).toBeGreaterThan(0.1);
    // Medians of 10,000 uniform values: standard error 0.001 each, so the 95% interval of the ratio is
    // about ±0.003 (resampling 1,000 quantiles instead made it three times as wide).
    expect(high - low).toBeLessThan(0.01);
    expect(high - low).toBeGreaterThan(0.003);
  });

  it("Mann–Whitney over large tied samples: the normal approximation with the tie correction", () => {
    const a = Array.from({ length: 5000 }, (_, i) => i % 10);
    const b = Array.from({ length: 5000 }, (_, i) => (i % 10) + (i % 2));
    const { u, p } = mannWhitney(a, b);
    // U counts the pairs where a wins, ties as one half.
    let pairs = 0;
    for (let x = 0; x < 10; x += 1)
      for (let y = 0; y < 11; y += 1) {
        const count = (v: number, list: number[]) => list.filter((w) => w === v).length;
        pairs += count(x, a.slice(0, 10)) * count(y, b.slice(0, 10)) * (x > y ? 1 : x === y ? 0.5 : 0);
      }
    expect(u).toBeCloseTo(pairs * 500 * 500, 6);
    expect(p).toBeLessThan(1e-6);
  });
});
