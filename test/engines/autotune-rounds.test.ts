/**
 * Autotune for engines whose rounds are repetitions of their own (fio, dd): each round runs the tool at the
 * round's value — fio from a jobfile of its own, dd with that many processes — and the row keeps every round
 * and the value chosen (before, fio and dd measured the starting value alone and said nothing).
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../support/cli.js";
import { readJson, rowsOf, tempDirs, writeSpec } from "./support.js";

const temps = tempDirs("benchspec-autotune-");
afterAll(() => temps.removeAll());

describe("autotune of fio and dd, one run of the tool per round", () => {
  it("fio tunes its rate against a latency bound and dd its processes by the gain rule; the rows and summary say so", async () => {
    const work = await temps.make();
    const spec = await writeSpec(work, {
      name: "tuned",
      targets: { d: { kind: "fs", path: work } },
      workloads: [
        {
          name: "fio",
          engine: "fio",
          op: "randread",
          size: "4MiB",
          bs: "4KiB",
          ioengine: "psync",
          duration: "1s",
          // fio reads from the page cache in microseconds: every rate up to max meets the bound.
          autotune: {
            param: "rate",
            start: 100,
            factor: 4,
            max: 1600,
            bound: { metric: "p99", atMost: "50ms" },
          },
        },
        {
          name: "dd",
          engine: "dd",
          op: "write",
          bs: "64KiB",
          count: 16,
          autotune: { param: "parallel", start: 1, factor: 2, max: 4, stopWhenGainBelow: "0%" },
        },
      ],
    });
    const out = join(work, "run");
    const result = await runCli(["run", spec, "--out", out], {});
    expect(result.code, result.stderr).toBe(0);
    const [fio, dd] = rowsOf(out);
    expect(fio!.autotune!.rounds.map((r) => [r.value, r.met])).toEqual([
      [100, true],
      [400, true],
      [1600, true],
    ]);
    // Each round ran at its rate: fio's IOPS over its second are the rate asked.
    for (const r of fio!.autotune!.rounds) expect(Math.abs(r.iops / r.value - 1)).toBeLessThan(0.05);
    expect(fio!.autotune!.chosen).toBe(1600);
    expect(fio!.params.rate).toEqual({ opsPerSecond: 1600 });
    expect(Math.abs(fio!.iops / 1600 - 1)).toBeLessThan(0.05);
    // Its rounds' jobfiles are in the run's raw output, each with the round's rate.
    const raw = await readdir(join(out, "raw"));
    const jobfiles = raw.filter((name) => /^fio\.d\.randread\.r1\.rate-\d+_s\.fio$/.test(name)).sort();
    expect(jobfiles).toHaveLength(3);
    const text = await readFile(join(out, "raw", "fio.d.randread.r1.rate-400_s.fio"), "utf8");
    expect(text).toMatch(/^rate_iops=400$/m);
    // dd: the ramp until a round moved less than the one before, each round with its processes, the row
    // the chosen round's.
    const rounds = dd!.autotune!.rounds;
    expect(rounds.length).toBeGreaterThanOrEqual(2);
    expect(rounds.map((r) => r.value)).toEqual([1, 2, 4].slice(0, rounds.length));
    for (const r of rounds) expect(r.bytes).toBe(r.value * 16 * 64 * 1024);
    const chosen = dd!.autotune!.chosen;
    const dropped = rounds.findIndex((r, i) => i > 0 && r.throughput < rounds[i - 1]!.throughput);
    expect(chosen).toBe(dropped === -1 ? 4 : rounds[dropped - 1]!.value);
    expect(dd!.jobs).toHaveLength(chosen);
    expect(dd!.params.parallel).toBe(chosen);
    const summary = await readJson<{
      cases: { id: string; autotune?: { knee?: number; bound?: unknown } }[];
    }>(join(out, "summary.json"));
    expect(summary.cases.map((c) => [c.id, c.autotune?.knee])).toEqual([
      ["fio.d.randread", 1600],
      ["dd.d.write", chosen],
    ]);
  }, 120_000);
});
