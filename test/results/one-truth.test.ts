/**
 * One source of truth: whatever a run's rows hold — rounds whose window is reached or not, autotuned cases
 * with one or several repetitions, cases run on several hosts or over several targets at once, failed
 * repetitions and repetitions run again after them — every figure the report prints (its cases table,
 * expectations, rounds, the data its charts and CSV are made of) is summary.json's, and the console's line
 * after each case says what summary.json says of it. Over every spec in specs/.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Case, Plan } from "../../src/plan/types.js";
import { loadInputs } from "../../src/report/load.js";
import { summaryCsv } from "../../src/report/csv.js";
import { RunModel } from "../../src/results/model/accumulator.js";
import type { ResultRow } from "../../src/rows/row.js";
import { buildSummary, caseSummary, nicLimits, type RunSummary } from "../../src/results/summary.js";
import { METRICS } from "../../src/rows/metric-names.js";
import { scenarioPlan, writeRunDir } from "../report/support.js";
import { SPECS_DIR } from "../support/spec.js";
import { tempDirs } from "../support/temp.js";

const tempDir = tempDirs("benchspec-one-truth-");

const SPECS = readdirSync(SPECS_DIR)
  .filter((f) => f.endsWith(".yaml"))
  .map((f) => f.replace(/\.yaml$/, ""));

/** What one generated run does besides measuring every case: its shape, drawn by fast-check. */
interface Shape {
  seed: number;
  reps: number;
  /** Per mille of repetitions that fail. */
  failPerMille: number;
  /** Whether a failed repetition is run again later in the file (--resume). */
  resume: boolean;
  /** Rounds: each target's tracked value steady from this round on (0: never steady), and rounds run. */
  steadyFrom: number;
  roundsRun: number;
  /** Autotune: the most steps a repetition ramps through. */
  steps: number;
  /** Cases whose rows are of several hosts (per mille), and how many hosts. */
  hostsPerMille: number;
  hostCount: number;
}

const shapes = fc.record({
  seed: fc.integer({ min: 1, max: 1_000_000 }),
  reps: fc.integer({ min: 1, max: 4 }),
  failPerMille: fc.constantFrom(0, 150, 400),
  resume: fc.boolean(),
  steadyFrom: fc.integer({ min: 0, max: 8 }),
  roundsRun: fc.integer({ min: 1, max: 12 }),
  steps: fc.integer({ min: 1, max: 5 }),
  hostsPerMille: fc.constantFrom(0, 300, 1000),
  hostCount: fc.integer({ min: 2, max: 3 }),
});

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** The rows a run of `plan` with this shape appends, in the order it appends them. */
function runRows(plan: Plan, shape: Shape): ResultRow[] {
  const rand = rng(shape.seed);
  const rows: ResultRow[] = [];
  const later: ResultRow[] = [];
  const at = (second: number) => new Date(Date.UTC(2026, 0, 1) + second * 1000).toISOString();
  let clock = 0;
  const row = (
    c: Case,
    repetition: number,
    throughput: number,
    extra: Partial<ResultRow> = {},
  ): ResultRow => {
    const failed = rand() * 1000 < shape.failPerMille;
    const seconds = 1 + rand();
    const bs = typeof c.params.bs === "number" ? c.params.bs : 1 << 20;
    clock += 3;
    const measured = {
      ok: !failed,
      ...(failed && { error: `failure ${Math.floor(rand() * 3)}` }),
      start: at(clock),
      end: at(clock + seconds),
      bytes: failed ? 0 : throughput * seconds,
      ops: failed ? 0 : (throughput * seconds) / bs,
      seconds,
      throughput: failed ? 0 : throughput,
      iops: failed ? 0 : throughput / bs,
    };
    const latency = { mean: bs / throughput, p50: bs / throughput, p99: (4 * bs) / throughput };
    const hosts =
      rand() * 1000 < shape.hostsPerMille
        ? Array.from({ length: shape.hostCount }, (_, h) => ({
            host: `h${h + 1}`,
            ...measured,
            ok: measured.ok || h > 0,
            start: at(clock + h * 0.01),
            throughput: measured.throughput / shape.hostCount,
            latency,
          }))
        : undefined;
    return {
      v: 1,
      source: "run",
      spec: plan.name,
      specHash: plan.specHash,
      case: c.id,
      workload: c.workload,
      target: c.target,
      engine: c.engine,
      op: c.op,
      params: c.params,
      repetition,
      warmup: false,
      ...measured,
      ...(!failed && { latency }),
      ...(!failed &&
        c.engine !== "fio" && { client: { cpuSeconds: 1, cpuPerGiB: rand(), eventLoopUtilization: rand() } }),
      ...(hosts && { hosts, startSpread: 0.01 * (shape.hostCount - 1) }),
      ...(c.together && {
        targets: c.together.map((target) => ({ target, ...measured, throughput: measured.throughput / 2 })),
      }),
      ...extra,
    };
  };
  const speed = (c: Case) => 1e8 * (1 + (c.index % 4)) * (0.95 + 0.1 * rand());
  /** A repetition: its warm-ups first (the run writes them before the case's first measured one). */
  const repetition = (c: Case, rep: number, make: () => ResultRow) => {
    if (rep === 1)
      for (let w = 1; w <= c.params.warmup; w += 1) rows.push({ ...row(c, w, speed(c)), warmup: true });
    const made = make();
    rows.push(made);
    // Run again by --resume: a row for the same repetition, further down the file.
    if (!made.ok && shape.resume) later.push({ ...row(c, rep, speed(c)), ok: true });
  };
  const inRounds = new Set<string>();
  for (const c of plan.cases) {
    const rounds = plan.workloads[c.workload]?.rounds;
    if (rounds) {
      const key = `${c.workload}\0${c.target}`;
      if (inRounds.has(key)) continue;
      inRounds.add(key);
      const cases = plan.cases.filter((o) => o.workload === c.workload && o.target === c.target);
      for (let round = 1; round <= Math.min(shape.roundsRun, rounds.max); round += 1)
        for (const each of cases) {
          // Drifting 30 % a round until steadyFrom, then within 1 %.
          const steady = shape.steadyFrom > 0 && round >= shape.steadyFrom;
          const level = steady ? 1 + 0.01 * rand() : 1 + 0.3 * round;
          const value = speed(each) * level;
          repetition(each, round, () => row(each, round, value));
        }
      continue;
    }
    for (let rep = 1; rep <= shape.reps; rep += 1) {
      const autotune = c.params.autotune as { start: number; factor: number; max: number } | undefined;
      if (!autotune) {
        repetition(c, rep, () => row(c, rep, speed(c)));
        continue;
      }
      // Each repetition ramps on its own and stops at its own step.
      const count = 1 + Math.floor(rand() * shape.steps);
      const values = Array.from({ length: count }, (_, i) => autotune.start * autotune.factor ** i).filter(
        (v) => v <= autotune.max,
      );
      const steps = values.map((value, i) => ({
        value,
        throughput: speed(c) * (1 + Math.min(i, 2) * 0.5),
        iops: 100 * (i + 1),
        bytes: 1e9,
        seconds: 1 + rand(),
        ...(rand() < 0.8 && { latency: { p50: 0.001 * (i + 1), p99: 0.004 * (i + 1) } }),
      }));
      const chosen = steps[Math.max(0, steps.length - 2)]!;
      repetition(c, rep, () =>
        row(c, rep, chosen.throughput, {
          params: { ...c.params, concurrency: chosen.value },
          autotune: { param: "concurrency", rounds: steps, chosen: chosen.value },
        }),
      );
    }
  }
  return [...rows, ...later];
}

/** JSON as a file holds it (undefined fields gone). */
const asJson = <T>(value: T): T => (value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T));

/** The CSV's cells by column title, one record per case. */
function csvRecords(csv: string): Record<string, string>[] {
  const [header, ...lines] = csv.trim().split("\n");
  const split = (line: string) =>
    line.match(/("([^"]|"")*"|[^,]*)(,|$)/g)!.map((cell) => cell.replace(/,$/, ""));
  const titles = split(header!);
  return lines.map((line) => Object.fromEntries(split(line).map((cell, i) => [titles[i]!, cell])));
}

async function check(plan: Plan, shape: Shape) {
  const rows = runRows(plan, shape);
  const summary: RunSummary = asJson(buildSummary(plan, rows));

  // The console: a model fed row by row as the run appends them, asked after each case.
  const model = new RunModel(plan);
  for (const r of rows) model.addRow(r);
  const nics = nicLimits(plan);
  for (const c of summary.cases) expect(asJson(caseSummary(model.figures(c.id, nics)!))).toEqual(c);

  // The report, from a run directory as `run` leaves it.
  const dir = join(await tempDir(), "run");
  await writeRunDir(dir, plan, rows, { "summary.json": JSON.stringify(summary) });
  const [run] = await loadInputs([dir]);
  const reported = asJson(run!.cases.map(caseSummary));
  expect(reported).toEqual(summary.cases);
  expect(asJson(run!.expect)).toEqual(summary.expect);
  expect(asJson(run!.rounds)).toEqual(summary.rounds);

  // The CSV: every statistic of every case as summary.json has it.
  const records = csvRecords(summaryCsv([run!]));
  expect(records.length).toBe(summary.cases.length);
  for (const [i, c] of summary.cases.entries()) {
    const record = records[i]!;
    expect(record.case).toBe(c.id);
    expect(Number(record.repetitions)).toBe(c.repetitions);
    expect(Number(record.failed)).toBe(c.failed);
    for (const metric of METRICS) {
      const stats = c.metrics[metric];
      const cell = (name: string) => record[`${metric}.${name}`];
      if (!stats) {
        expect(cell("median")).toBe("");
        continue;
      }
      expect(Number(cell("n"))).toBe(stats.n);
      expect(Number(cell("median"))).toBe(stats.median);
      expect(Number(cell("mean"))).toBe(stats.mean);
    }
  }
  return { summary, rows };
}

describe("every figure is decided once", () => {
  for (const spec of SPECS) {
    it(
      `${spec}: the report, its CSV and the console say what summary.json says`,
      { timeout: 120_000 },
      async () => {
        const plan = await scenarioPlan(spec);
        await fc.assert(
          fc.asyncProperty(shapes, async (shape) => {
            await check(plan, shape);
          }),
          { numRuns: 12, seed: 24 },
        );
      },
    );
  }

  it("an autotuned case's figures are those of the one step chosen over all its repetitions", async () => {
    const plan = await scenarioPlan("minio-speedtest");
    const shape: Shape = {
      seed: 5,
      reps: 3,
      failPerMille: 0,
      resume: false,
      steadyFrom: 0,
      roundsRun: 1,
      steps: 5,
      hostsPerMille: 0,
      hostCount: 2,
    };
    const { summary, rows } = await check(plan, shape);
    const tuned = summary.cases.find((c) => c.autotune)!;
    const knee = tuned.autotune!.knee!;
    expect(tuned.params.concurrency).toBe(knee);
    // Recomputed by hand: the chosen step's throughputs, one per repetition that reached it.
    const atKnee = rows
      .filter((r) => r.case === tuned.id && !r.warmup && r.ok)
      .flatMap((r) => r.autotune!.rounds.filter((s) => s.value === knee).map((s) => s.throughput))
      .sort((a, b) => a - b);
    expect(tuned.metrics.throughput!.n).toBe(atKnee.length);
    expect(tuned.repetitions).toBe(3);
    const mid = Math.floor(atKnee.length / 2);
    const median = atKnee.length % 2 ? atKnee[mid]! : (atKnee[mid - 1]! + atKnee[mid]!) / 2;
    expect(tuned.metrics.throughput!.median).toBeCloseTo(median, 6);
  });

  it("a workload in rounds is figured over its measurement window only, in the report as in summary.json", async () => {
    const plan = await scenarioPlan("cloud-disk-pts");
    const reached: Shape = {
      seed: 9,
      reps: 1,
      failPerMille: 0,
      resume: false,
      steadyFrom: 3,
      roundsRun: 12,
      steps: 1,
      hostsPerMille: 0,
      hostCount: 2,
    };
    const { summary } = await check(plan, reached);
    const rounds = summary.rounds!.iops!.disk1!;
    expect(rounds.status).toBe("steady");
    const window = rounds.window!;
    expect(window.last - window.first + 1).toBe(rounds.criteria.window);
    const tracked = summary.cases.find((c) => c.id === plan.workloads.iops!.rounds!.track.cases.disk1)!;
    expect(tracked.repetitions).toBe(rounds.criteria.window);
    // Not reached: every round run is in the window's place, none of the drift left out.
    const { summary: drifting } = await check(plan, { ...reached, steadyFrom: 0 });
    expect(drifting.rounds!.iops!.disk1!.status).not.toBe("steady");
  });
});
