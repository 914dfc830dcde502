import { execa } from "execa";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { readRows } from "../../src/results/ndjson.js";
import type { ResultRow } from "../../src/rows/row.js";
import { roundsOutcome } from "../../src/results/steady-rounds.js";
import type { RunSummary } from "../../src/results/summary.js";
import { runCli } from "../support/cli.js";
import { ROOT } from "../support/spec.js";
import { tempDirs } from "../support/temp.js";

const tempDir = tempDirs("benchspec-rounds-");

const CASES = ["pts.scratch.randwrite.bs-4KiB", "pts.scratch.randwrite.bs-64KiB"];
const TARGETS = ["disk1", "disk2"];
const targetCases = (target: string) => [
  `pts.${target}.randwrite.bs-4KiB`,
  `pts.${target}.randwrite.bs-64KiB`,
];

/** A 2-case matrix of real fio in rounds of 1 s repetitions: window 3, at most 5 rounds. */
async function roundsSpec(excursion: string) {
  const work = await tempDir();
  const target = join(work, "target");
  await mkdir(target);
  const spec = join(work, "spec.yaml");
  await writeFile(
    spec,
    stringify({
      benchspec: 1,
      name: "rounds",
      targets: { scratch: { kind: "fs", path: target } },
      workloads: [
        {
          name: "pts",
          engine: "fio",
          op: "randwrite",
          ioengine: "psync",
          size: "8MiB",
          bs: ["4KiB", "64KiB"],
          duration: "1s",
          rounds: {
            track: { where: { bs: "4KiB" }, metric: "iops" },
            window: 3,
            excursion,
            slope: "10%",
            max: 5,
          },
        },
      ],
    }),
  );
  return { work, spec, out: join(work, "run") };
}

const measured = (out: string) =>
  readRows<ResultRow>(join(out, "results.ndjson")).filter((row) => !row.warmup && row.ok);
const summaryOf = async (out: string) =>
  JSON.parse(await readFile(join(out, "summary.json"), "utf8")) as RunSummary;

/** Every round 1…n ran every case exactly once, in matrix order. */
function expectWholeRounds(rows: readonly ResultRow[], n: number) {
  expect(rows.map((row) => `${row.repetition}:${row.case}`)).toEqual(
    Array.from({ length: n }, (_, i) => CASES.map((id) => `${i + 1}:${id}`)).flat(),
  );
}

describe("rounds to steady state (real fio)", () => {
  it("says the purge before the first round, and numbers each case of a round by its own place", async () => {
    const work = await tempDir();
    const spec = join(work, "spec.yaml");
    await writeFile(
      spec,
      stringify({
        benchspec: 1,
        name: "order",
        targets: { scratch: { kind: "fs", path: work } },
        workloads: [
          {
            name: "pts",
            engine: "fio",
            op: "randread",
            ioengine: "psync",
            size: "4MiB",
            bs: ["4KiB", "64KiB"],
            duration: "1s",
            purge: true,
            rounds: { track: { where: { bs: "4KiB" }, metric: "iops" }, window: 2, max: 2 },
          },
        ],
      }),
    );
    const result = await runCli(["run", spec, "--out", join(work, "run")]);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stderr.split("\n");
    const purge = lines.findIndex((line) => line.includes("purge: emptied"));
    const round1 = lines.findIndex((line) => line.includes("round 1 (at most 2)"));
    expect(purge).toBeGreaterThanOrEqual(0);
    expect(purge).toBeLessThan(round1);
    expect(lines.filter((line) => line.startsWith("["))).toEqual([
      expect.stringMatching(/^\[1\/2\] pts\.scratch\.randread\.bs-4KiB {2}2 reps/),
      expect.stringMatching(/^\[2\/2\] pts\.scratch\.randread\.bs-64KiB {2}2 reps/),
    ]);
  }, 60_000);

  it("runs every case once per round, stops where the PTS criteria hold, summarises the window only", async () => {
    const { spec, out } = await roundsSpec("20%");
    const result = await runCli(["run", spec, "--out", out]);
    expect(result.code, result.stderr).toBe(0);
    const rows = measured(out);
    const summary = await summaryOf(out);
    const rounds = summary.rounds!.pts!.scratch!;
    expect(Object.keys(summary.rounds!.pts!)).toEqual(["scratch"]);
    // The rounds ended exactly where the criteria say, judged again from the rows.
    const tracked = rows.filter((row) => row.case === CASES[0]).map((row) => row.iops!);
    const expected = roundsOutcome(tracked, { window: 3, excursion: 20, slope: 10, max: 5 });
    expect(rounds).toMatchObject({ status: expected.status, rounds: expected.rounds });
    expect(rows.length).toBe(2 * rounds.rounds);
    expectWholeRounds(rows, rounds.rounds);
    expect(rounds.rounds).toBeGreaterThanOrEqual(3);
    // No round past the steady one ran.
    if (rounds.status === "steady")
      expect(
        roundsOutcome(tracked.slice(0, rounds.rounds - 1), { window: 3, excursion: 20, slope: 10, max: 5 })
          .status,
      ).toBe("incomplete");
    expect(result.stderr).toContain(
      rounds.status === "steady" ? "steady state reached" : "steady state not reached",
    );
    // Each case's figures are the mean over the window's rounds only.
    const { first, last } = rounds.window!;
    expect(last - first + 1).toBe(3);
    for (const id of CASES) {
      const inWindow = rows.filter(
        (row) => row.case === id && row.repetition >= first && row.repetition <= last,
      );
      const mean = inWindow.reduce((sum, row) => sum + row.iops!, 0) / inWindow.length;
      const c = summary.cases.find((s) => s.id === id)!;
      expect(c.repetitions).toBe(3);
      expect(c.metrics.iops!.mean).toBeCloseTo(mean, 6);
    }
    expect(rounds.values.filter((v) => v.case === CASES[1]).map((v) => v.round)).toEqual(
      Array.from({ length: rounds.rounds }, (_, i) => i + 1),
    );
  }, 120_000);

  it("never steady: runs max rounds, says so; --resume after Ctrl-C continues the rounds", async () => {
    // A zero excursion is never met by real measurements: all 5 rounds run.
    const { spec, out } = await roundsSpec("0%");
    const child = execa("node", [join(ROOT, "bin/benchspec.js"), "run", spec, "--out", out], {
      reject: false,
      env: { NO_COLOR: "1" },
    });
    // Interrupt once round 2 is under way.
    const deadline = Date.now() + 60_000;
    while (readRowsSafe(out) < 3) {
      if (Date.now() > deadline) throw new Error("timed out waiting for round 2");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    child.kill("SIGINT");
    expect((await child).exitCode).toBe(130);
    const kept = measured(out);
    expect(kept.length).toBeGreaterThanOrEqual(3);
    expect(kept.length).toBeLessThan(10);

    const resumed = await runCli(["run", "--resume", out]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const rows = measured(out);
    // The rows kept are still there; the rounds went on from where they stopped, each case once per round.
    expect(rows.slice(0, kept.length)).toEqual(kept);
    expectWholeRounds(rows, 5);
    const rounds = (await summaryOf(out)).rounds!.pts!.scratch!;
    expect(rounds).toMatchObject({ status: "not reached", rounds: 5, window: { first: 3, last: 5 } });
    expect(resumed.stderr).toContain("workload pts on scratch: steady state not reached in 5 rounds");
  }, 180_000);

  it("on two targets runs and judges each target's rounds apart, one target after the other", async () => {
    // Lenient criteria: each target may settle in its own round (2 or 3), judged on its own values.
    const { spec, out } = await twoTargetSpec("30%");
    const result = await runCli(["run", spec, "--out", out]);
    expect(result.code, result.stderr).toBe(0);
    const rows = measured(out);
    const summary = await summaryOf(out);
    expect(Object.keys(summary.rounds!.pts!)).toEqual(TARGETS);
    const criteria = { window: 2, excursion: 30, slope: 30, max: 3 };
    let before = 0;
    for (const target of TARGETS) {
      const own = rows.filter((row) => row.target === target);
      const ids = targetCases(target);
      const rounds = summary.rounds!.pts![target]!;
      // Judged on this target's tracked case alone.
      expect(rounds.track.case).toBe(ids[0]);
      const tracked = own.filter((row) => row.case === ids[0]).map((row) => row.iops!);
      expect(rounds).toMatchObject({ target, ...roundsOutcome(tracked, criteria) });
      expect(rounds.status).not.toBe("incomplete");
      // No round past this target's steady one: the rounds stopped at its own verdict.
      expect(tracked).toHaveLength(rounds.rounds);
      // One row per round per case of this target, the target's rounds run before the next target's.
      expect(own.map((row) => `${row.repetition}:${row.case}`)).toEqual(
        Array.from({ length: rounds.rounds }, (_, i) => ids.map((id) => `${i + 1}:${id}`)).flat(),
      );
      expect(rows.slice(before, before + own.length)).toEqual(own);
      before += own.length;
      expect(new Set(rounds.values.map((v) => v.case))).toEqual(new Set(ids));
      // Each case's figures are over its own target's window.
      const { first, last } = rounds.window!;
      for (const id of ids) {
        const inWindow = own.filter(
          (row) => row.case === id && row.repetition >= first && row.repetition <= last,
        );
        const c = summary.cases.find((s) => s.id === id)!;
        expect(c.repetitions).toBe(2);
        expect(c.metrics.iops!.mean).toBeCloseTo(
          inWindow.reduce((sum, row) => sum + row.iops!, 0) / inWindow.length,
          6,
        );
      }
      expect(result.stderr).toContain(
        rounds.status === "steady"
          ? `workload pts on ${target}: steady state reached in round ${rounds.rounds}`
          : `workload pts on ${target}: steady state not reached in 3 rounds`,
      );
    }
  }, 180_000);

  it("--resume on two targets leaves the judged target alone and continues the other's rounds", async () => {
    // Never steady: each target runs 3 rounds of 2 cases.
    const { spec, out } = await twoTargetSpec("0%");
    const child = execa("node", [join(ROOT, "bin/benchspec.js"), "run", spec, "--out", out], {
      reject: false,
      env: { NO_COLOR: "1" },
    });
    // Interrupt once disk1's rounds are over and disk2's first round is under way.
    const deadline = Date.now() + 90_000;
    while (readRowsSafe(out) < 7) {
      if (Date.now() > deadline) throw new Error("timed out waiting for disk2's rounds");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    child.kill("SIGINT");
    expect((await child).exitCode).toBe(130);
    const kept = measured(out);
    expect(kept.filter((row) => row.target === "disk1")).toHaveLength(6);
    expect(kept.length).toBeLessThan(12);

    const resumed = await runCli(["run", "--resume", out]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const rows = measured(out);
    expect(rows.slice(0, kept.length)).toEqual(kept);
    // disk1 ran no more rounds; disk2's went on from where they stopped, each case once per round.
    expect(resumed.stderr).not.toContain("workload pts on disk1: round");
    expect(rows.map((row) => `${row.repetition}:${row.case}`)).toEqual(
      TARGETS.flatMap((target) =>
        [1, 2, 3].flatMap((round) => targetCases(target).map((id) => `${round}:${id}`)),
      ),
    );
    const summary = await summaryOf(out);
    for (const target of TARGETS) {
      expect(summary.rounds!.pts![target]).toMatchObject({
        status: "not reached",
        rounds: 3,
        window: { first: 2, last: 3 },
      });
      expect(resumed.stderr).toContain(`workload pts on ${target}: steady state not reached in 3 rounds`);
    }
  }, 180_000);
});

/** One workload in rounds on two fs targets (two directories): window 2, at most 3 rounds. */
async function twoTargetSpec(excursion: string) {
  const work = await tempDir();
  await Promise.all(TARGETS.map((target) => mkdir(join(work, target))));
  const spec = join(work, "spec.yaml");
  await writeFile(
    spec,
    stringify({
      benchspec: 1,
      name: "rounds-targets",
      targets: Object.fromEntries(
        TARGETS.map((target) => [target, { kind: "fs", path: join(work, target) }]),
      ),
      workloads: [
        {
          name: "pts",
          engine: "fio",
          op: "randwrite",
          ioengine: "psync",
          size: "8MiB",
          target: TARGETS,
          bs: ["4KiB", "64KiB"],
          duration: "1s",
          rounds: {
            track: { where: { bs: "4KiB" }, metric: "iops" },
            window: 2,
            excursion,
            slope: "30%",
            max: 3,
          },
        },
      ],
    }),
  );
  return { spec, out: join(work, "run") };
}

function readRowsSafe(out: string): number {
  try {
    return readRows<ResultRow>(join(out, "results.ndjson")).length;
  } catch {
    return 0;
  }
}
