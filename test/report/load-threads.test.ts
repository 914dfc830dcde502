import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Plan } from "../../src/plan/types.js";
import { RunModel } from "../../src/results/model/accumulator.js";
import { loadInputs } from "../../src/report/load.js";
import { scanRowsThreaded } from "../../src/report/rows-threads.js";
import { lineRanges } from "../../src/results/ndjson.js";
import type { ResultRow } from "../../src/rows/row.js";
import { scenarioPlan, synthRows, synthSeries, writeRunDir } from "./support.js";

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tempDir() {
  const dir = await mkdtemp(join(tmpdir(), "benchspec-load-threads-"));
  dirs.push(dir);
  return dir;
}

/** fio cases with steady-state results and a time series, and an autotuned object case. */
async function mixedPlan(): Promise<Plan> {
  const pts = await scenarioPlan("cloud-disk-pts", ["iops.steady={metric: iops, window: 60s, slope: 10%}"]);
  const speedtest = await scenarioPlan("minio-speedtest");
  const sampled = pts.cases.find((c) => c.params.sample !== undefined)!;
  const tuned = speedtest.cases.find((c) => c.params.autotune !== undefined)!;
  // The case the iops rounds track on disk1, so that its rounds are judged and their window counts.
  const tracked = pts.cases.find((c) => c.id === pts.workloads.iops!.rounds!.track.cases.disk1)!;
  const first = pts.cases.slice(0, 12).filter((c) => c !== sampled && c !== tracked);
  return { ...pts, cases: [...first, tracked, sampled, tuned] };
}

/** The case whose rows are of two hosts: one not in rounds, so that every repetition of it counts. */
const hostsCase = (plan: Plan) => plan.cases.find((c) => !plan.workloads[c.workload]?.rounds)!;

/**
 * A few thousand lines of everything a results file may hold: warm-up, failed, steady-state and autotuned
 * rows (per-row rounds and rounds in one row), rows of cases not in the plan, rows of another spec, rows
 * in another key order, progress text, JSON that is not a row and blank lines.
 */
function resultLines(plan: Plan): string[] {
  const rows = synthRows(plan, { reps: 200, failed: (_, rep) => rep % 17 === 0 });
  // By repetition, so that every part of the file has rows of every case.
  rows.sort((a, b) => a.repetition - b.repetition);
  const tuned = plan.cases.find((c) => c.params.autotune !== undefined)!;
  const lines: string[] = [];
  rows.forEach((row, i) => {
    let out: Record<string, unknown> = row;
    // Warm-ups: a round of a workload in rounds is measured besides its warm-up of the same number.
    if (row.repetition <= 2) {
      if (plan.workloads[row.workload]?.rounds) lines.push(JSON.stringify({ ...out, warmup: true }));
      else out = { ...out, warmup: true };
    }
    if (row.engine === "fio" && row.params.steady !== undefined)
      out = { ...out, steady: { criterion: "iops_slope:10%", attained: i % 3 !== 0 } };
    if (row.case === tuned.id) {
      out = { ...out, params: { ...row.params, concurrency: 4 << (row.repetition % 4) } };
      if (row.repetition % 10 === 0) {
        out.autotune = {
          rounds: [4, 8, 16].map((value) => ({
            value,
            throughput: row.throughput * (1 + value / 100),
            iops: row.iops,
            seconds: row.seconds,
          })),
        };
      }
    }
    // What the object engines add: the client's cost (not on every row) and, for reads, time to first byte.
    if (i % 5 !== 2)
      out = {
        ...out,
        client: {
          cpuSeconds: 1 + (i % 7),
          cpuPerGiB: i % 11 === 0 ? 0 : 0.5 + (i % 13) / 10,
          eventLoopUtilization: (i % 17) / 17,
          threads: 1 + (i % 3),
        },
      };
    if (i % 4 !== 1) out = { ...out, ttfb: { p50: 0.001 * (1 + (i % 9)), p99: 0.01 * (1 + (i % 5)) } };
    // A case run on two hosts: each host's figures, one of them failing now and then.
    if (row.case === hostsCase(plan).id) {
      const host = (name: string, delay: number, ok: boolean) => ({
        host: name,
        ok,
        ...(!ok && { error: `${name} lost` }),
        start: new Date(Date.parse(row.start) + delay).toISOString(),
        end: row.end,
        bytes: row.bytes / 2,
        ops: row.ops / 2,
        seconds: row.seconds,
        throughput: row.throughput / 2 + (i % 7),
        iops: row.iops / 2,
        latency: { p50: 0.001 * (1 + (i % 3)), p99: 0.01 },
      });
      out = {
        ...out,
        startSpread: (i % 5) / 100,
        hosts: [host("h1", 0, true), host("h2", (i % 5) * 10, row.ok)],
      };
    }
    if (i % 50 === 7) out = { ...out, spec: "other", specHash: "0f0f" };
    if (i % 97 === 3) {
      const { ok, ...rest } = out;
      out = { ok, ...rest };
    }
    lines.push(JSON.stringify(out));
    if (i % 400 === 5) lines.push("progress: text between the rows");
    // Only late in the file: the first one's line number is then in a later range than the first.
    if (i > rows.length * 0.7 && i % 250 === 9) lines.push(JSON.stringify({ hello: "not a result row" }));
    if (i % 300 === 11) lines.push("");
    if (i % 60 === 13 && row.case !== tuned.id) {
      const extra = `extra.case-${Math.floor(i / 60) % 4}`;
      const params = extra.endsWith("3") ? { ...row.params, autotune: { param: "iodepth" } } : row.params;
      lines.push(JSON.stringify({ ...row, case: extra, params }));
    }
  });
  return lines;
}

async function writeRun(dir: string, plan: Plan, lines: readonly string[], tail: string) {
  const series = synthSeries(plan, { reps: 3, points: 200 });
  await writeRunDir(dir, plan, `${lines.join("\n")}\n${tail}`, {
    "timeseries.ndjson": `${series.map((p) => JSON.stringify(p)).join("\n")}\n`,
  });
}

const torn = (line: string) => line.slice(0, Math.floor(line.length / 2));

const PARALLEL = { threadsFrom: 0 };

describe("result rows parsed on several threads", () => {
  it("give the same run as one pass: aggregates, plan, counts, notes", { timeout: 120_000 }, async () => {
    const plan = await mixedPlan();
    const dir = await tempDir();
    const lines = resultLines(plan);
    await writeRun(dir, plan, lines, torn(lines[3]!));
    const file = join(dir, "results.ndjson");

    const [single] = await loadInputs([dir], { threads: 1 });
    // What the file holds is all there (and noted) in the reference.
    expect(single!.rows.warmup).toBeGreaterThan(0);
    expect(single!.rows.failed).toBeGreaterThan(0);
    expect(single!.cases.map((c) => c.id)).toContain("extra.case-3");
    expect(single!.cases.find((c) => c.autotune)).toBeDefined();
    expect(single!.cases.some((c) => c.steady)).toBe(true);
    expect(single!.series.length).toBeGreaterThan(0);
    expect(single!.cases.find((c) => c.id === hostsCase(plan).id)!.hosts!.hosts).toMatchObject([
      { host: "h1", failed: 0 },
      { host: "h2", failed: expect.any(Number) as number, errors: ["h2 lost"] },
    ]);
    expect(single!.cases.filter((c) => c.client?.cpuPerGiB !== undefined).length).toBeGreaterThan(10);
    expect(single!.cases.filter((c) => c.ttfb?.p99 !== undefined).length).toBeGreaterThan(10);
    expect(single!.notes).toEqual([
      expect.stringMatching(/^results\.ndjson: \d+ line\(s\) are not result rows .*\(first: line \d+\)$/),
      expect.stringMatching(/^results\.ndjson: \d+ non-JSON line\(s\) skipped$/),
      "results.ndjson: the last line was cut off (an interrupted run) and was skipped",
    ]);

    for (const threads of [2, 3, 5]) {
      const [parallel] = await loadInputs([dir], { threads, ...PARALLEL });
      expect(parallel).toStrictEqual(single);
    }

    // The pass itself, with what the run directory does not show (spec hashes; no raw/ for steady rows).
    const one = await scanRowsThreaded(file, new RunModel(plan), { threads: 1 });
    const three = await scanRowsThreaded(file, new RunModel(plan), {
      threads: 3,
      ...PARALLEL,
    });
    expect(one.threads).toBe(0);
    expect(three.threads).toBe(3);
    expect(three.scan).toStrictEqual(one.scan);
    expect(three.pass.steadyRows.length).toBeGreaterThan(0);
    expect(three.pass.steadyRows).toStrictEqual(one.pass.steadyRows);
    expect([...three.pass.hashes]).toStrictEqual([...one.pass.hashes]);
    expect(three.pass.derived.partial()).toStrictEqual(one.pass.derived.partial());
    expect([three.pass.invalid, three.pass.firstInvalid]).toEqual([one.pass.invalid, one.pass.firstInvalid]);
    expect(three.pass.acc.finish(plan.expect)).toStrictEqual(one.pass.acc.finish(plan.expect));
  });

  it("give the same run for a results file with a plan.json of another spec beside it", async () => {
    const plan = await mixedPlan();
    const dir = await tempDir();
    const lines = resultLines(plan).map((line) => line.replace('"source":"run"', '"source":"shell"'));
    await writeRun(dir, plan, lines, "");
    const file = join(dir, "out.ndjson");
    await writeFile(file, await readFile(join(dir, "results.ndjson")));
    const [single] = await loadInputs([file], { threads: 1 });
    expect(single!.planDerived).toBe(true);
    const [parallel] = await loadInputs([file], { threads: 3, ...PARALLEL });
    expect(parallel).toStrictEqual(single);
  });

  it(
    "reject a broken line before the end with its line number in the file",
    { timeout: 120_000 },
    async () => {
      const plan = await mixedPlan();
      const dir = await tempDir();
      const file = join(dir, "results.ndjson");
      const lines = resultLines(plan);
      await writeRun(dir, plan, lines, "");
      const bytes = await readFile(file);
      const ranges = await lineRanges(file, bytes.length, 3);
      expect(ranges).toHaveLength(3);
      /** The line (from 1) at a byte offset. */
      const lineAt = (offset: number) => bytes.subarray(0, offset).filter((b) => b === 10).length + 1;
      const lastOfRange0 = lineAt(ranges[1]!.start!) - 1;
      const firstOfRange1 = lineAt(ranges[1]!.start!);
      const inRange2 = Math.floor((lineAt(ranges[2]!.start!) + lines.length) / 2);
      for (const at of [lastOfRange0, firstOfRange1, inRange2]) {
        // The same length, so that the ranges stay the same.
        let line = at;
        while (lines[line - 1] === "") line -= 1;
        const broken = [...lines];
        broken[line - 1] = '{"case":'.padEnd(lines[line - 1]!.length, " ");
        await writeFile(file, `${broken.join("\n")}\n`);
        expect(await lineRanges(file, bytes.length, 3)).toEqual(ranges);
        const message = new RegExp(`results\\.ndjson:${line}: not a JSON row`);
        await expect(loadInputs([dir], { threads: 1 })).rejects.toThrow(message);
        await expect(loadInputs([dir], { threads: 3, ...PARALLEL })).rejects.toThrow(message);
      }
    },
  );

  it("tolerate a torn last line followed by nothing but blank lines, over several ranges", async () => {
    const plan = await mixedPlan();
    const dir = await tempDir();
    const lines = resultLines(plan);
    const size = lines.join("\n").length;
    await writeRun(dir, plan, lines, `${torn(lines[0]!)}\n${"\n".repeat(size)}`);
    const file = join(dir, "results.ndjson");
    const ranges = await lineRanges(file, (await stat(file)).size, 4);
    expect(ranges).toHaveLength(4);
    const [single] = await loadInputs([dir], { threads: 1 });
    expect(single!.notes).toContain(
      "results.ndjson: the last line was cut off (an interrupted run) and was skipped",
    );
    const [parallel] = await loadInputs([dir], { threads: 4, ...PARALLEL });
    expect(parallel).toStrictEqual(single);
  });

  it("fall back to one pass when a case outside the plan changes its autotuned parameter", async () => {
    const plan = await mixedPlan();
    const dir = await tempDir();
    const base = synthRows(plan, { reps: 300 }).filter((row) => row.case === plan.cases[0]!.id);
    const rows: ResultRow[] = base.map((row, i) => ({
      ...row,
      case: "extra.tuned",
      params: { ...row.params, autotune: { param: i < base.length / 2 ? "iodepth" : "jobs" } },
    }));
    await writeRun(
      dir,
      plan,
      rows.map((row) => JSON.stringify(row)),
      "",
    );
    const file = join(dir, "results.ndjson");
    const one = await scanRowsThreaded(file, new RunModel(plan), { threads: 1 });
    const two = await scanRowsThreaded(file, new RunModel(plan), {
      threads: 2,
      ...PARALLEL,
    });
    expect(two.threads).toBe(0);
    expect(two.pass.acc.finish([])).toStrictEqual(one.pass.acc.finish([]));
  });
});
