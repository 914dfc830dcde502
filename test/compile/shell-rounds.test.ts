/**
 * Workloads in rounds in the compiled script: its judge (bs_rounds_steady, awk) stops at the round
 * results/steady-rounds.ts stops at, on the same values — generated series and exact boundaries — and a real
 * script run of fio in rounds runs the rounds benchspec run would on the rows it printed.
 */
import { join } from "node:path";
import { execa } from "execa";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { compilePlan } from "../../src/compile/compile.js";
import { writeArtifacts } from "../../src/compile/output.js";
import { SHELL_SCRIPT_PATH } from "../../src/compile/shell/script.js";
import { VERSION } from "../../src/cli/context.js";
import { targetEnvVar } from "../../src/emit/shell-words.js";
import { targetRounds } from "../../src/plan/types.js";
import { trackedValues } from "../../src/results/rounds-summary.js";
import { roundsOutcome, type RoundCriteria } from "../../src/results/steady-rounds.js";
import { describeOutcome } from "../../src/run/rounds.js";
import { ResultRowSchema } from "../../src/rows/row.js";
import { tempDirs } from "../engines/support.js";
import { planOf, ROOT } from "../support/spec.js";
import { readFileSync } from "node:fs";

const temps = tempDirs("benchspec-rounds-");
afterAll(() => temps.removeAll());

/** rounds.sh's judge, and a driver that runs the script's loop over given values: "ROUNDS OUTCOME" per series. */
const library = readFileSync(join(ROOT, "src/compile/shell/rounds.sh"), "utf8");
const judge = /^bs_rounds_steady\(\) \{\n[\s\S]*?\n\}\n/m.exec(library)![0];
const driver = `${judge}
while read -r window excursion slope max rest; do
  read -r -a series <<<"$rest"
  values=() outcome=not round=0
  for ((round = 1; round <= max && round <= \${#series[@]}; round++)); do
    values+=("\${series[round - 1]}")
    if bs_rounds_steady "$window" "$excursion" "$slope" "\${values[@]}"; then outcome=steady; break; fi
  done
  if [[ $outcome == steady ]]; then echo "$round steady"; else echo "$((round - 1)) not"; fi
done`;

interface Series {
  criteria: RoundCriteria;
  /** As rows carry them (%.9g). */
  values: string[];
}

async function scriptOutcomes(series: readonly Series[]): Promise<string[]> {
  const input = series
    .map(({ criteria: c, values }) => `${c.window} ${c.excursion} ${c.slope} ${c.max} ${values.join(" ")}`)
    .join("\n");
  const { stdout } = await execa("bash", ["-c", driver], { input: `${input}\n` });
  return stdout.split("\n");
}

const tsOutcome = ({ criteria, values }: Series) => {
  const outcome = roundsOutcome(values.map(Number), criteria);
  return `${outcome.rounds} ${outcome.status === "steady" ? "steady" : "not"}`;
};

const g9 = (value: number) => Number(value.toPrecision(9)).toString();

describe("the script's rounds judge", () => {
  it("stops at the round steady-rounds.ts stops at, on generated series", async () => {
    const series = fc.sample(
      fc
        .record({
          window: fc.integer({ min: 2, max: 6 }),
          excursion: fc.integer({ min: 0, max: 100 }),
          slope: fc.integer({ min: 0, max: 100 }),
          level: fc.double({ min: 1e-6, max: 1e9, noNaN: true }),
          noise: fc.double({ min: 0, max: 0.5, noNaN: true }),
          trend: fc.double({ min: -0.1, max: 0.1, noNaN: true }),
          extra: fc.integer({ min: 0, max: 8 }),
          seed: fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 20, maxLength: 20 }),
        })
        .map(({ window, excursion, slope, level, noise, trend, extra, seed }): Series => {
          const max = window + extra;
          const values = seed
            .slice(0, max)
            .map((r, i) => g9(Math.max(1e-9, level * (1 + trend * i + noise * r))));
          return { criteria: { window, excursion, slope, max }, values };
        }),
      { numRuns: 400, seed: 2026 },
    );
    expect(await scriptOutcomes(series)).toEqual(series.map(tsOutcome));
  });

  it("agrees where a criterion holds with equality, and on constant, zero and negative-free flat series", async () => {
    const criteria = (window: number, excursion: number, slope: number, max = 10): RoundCriteria => ({
      window,
      excursion,
      slope,
      max,
    });
    const series: Series[] = [
      // range 20 = 20 % of the average 100: steady at round 3 (≤ holds)
      { criteria: criteria(3, 20, 100), values: ["90", "110", "100", "100"] },
      // the same one just over the bound: never steady
      { criteria: criteria(3, 19, 100, 3), values: ["90", "110", "100"] },
      // slope 5 per round × 2 = 10 = 10 % of 100
      { criteria: criteria(3, 100, 10), values: ["95", "100", "105"] },
      { criteria: criteria(3, 100, 9, 3), values: ["95", "100", "105"] },
      { criteria: criteria(2, 0, 0), values: ["7", "7"] },
      { criteria: criteria(2, 0, 0, 4), values: ["0", "0", "0", "0"] },
      {
        criteria: criteria(5, 20, 10, 25),
        values: Array.from({ length: 25 }, (_, i) => g9(1000 * 1.05 ** i)),
      },
      { criteria: criteria(4, 3, 1), values: ["0.1", "0.2", "0.30000000000000004", "0.1", "0.2", "0.3"] },
    ];
    expect(await scriptOutcomes(series)).toEqual(series.map(tsOutcome));
    expect(series.map(tsOutcome).slice(0, 4)).toEqual(["3 steady", "3 not", "3 steady", "3 not"]);
  });
});

const ROUNDS_SPEC = {
  benchspec: 1,
  name: "shell-rounds",
  targets: { scratch: { kind: "fs" } },
  workloads: [
    {
      name: "loose",
      engine: "fio",
      op: "randread",
      ioengine: "psync",
      size: "1MiB",
      warmup: 1,
      matrix: { bs: ["4KiB", "64KiB"] },
      rounds: {
        track: { where: { bs: "64KiB" }, metric: "throughput" },
        window: 2,
        max: 5,
        excursion: 100,
        slope: 100,
      },
    },
    {
      name: "strict",
      engine: "fio",
      op: "randread",
      ioengine: "psync",
      size: "1MiB",
      // Time-based: the operations of 0.5 s vary from round to round (a size-based 1 MiB took 1-3 ms,
      // and two rounds of the same whole milliseconds gave the same IOPS, which excursion 0 calls steady).
      duration: "500ms",
      bs: "4KiB",
      rounds: { track: { where: { bs: "4KiB" }, metric: "iops" }, window: 2, max: 3, excursion: 0, slope: 0 },
    },
  ],
};

describe("a real script run of fio in rounds", () => {
  it("runs each case once per round, warm-ups before round 1, and stops where benchspec run would on its rows", async () => {
    const plan = planOf(ROUNDS_SPEC);
    const { artifacts, leftOut } = await compilePlan(plan, ["fio", "shell", "sdk"], VERSION);
    expect(leftOut).toEqual([]);
    const dir = await temps.make();
    const target = await temps.make();
    await writeArtifacts(dir, artifacts);
    const run = await execa(join(dir, SHELL_SCRIPT_PATH), [], {
      env: { [targetEnvVar("scratch")]: target },
      reject: false,
      timeout: 120_000,
    });
    expect(run.exitCode, run.stderr).toBe(0);
    const rows = run.stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => ResultRowSchema.parse(JSON.parse(line)));
    for (const workload of ["loose", "strict"]) {
      const loop = targetRounds(plan.workloads[workload]!.rounds!)[0]!;
      const own = rows.filter((row) => row.workload === workload);
      const outcome = roundsOutcome(trackedValues(loop, own), loop);
      expect(outcome.status).not.toBe("incomplete");
      expect(run.stderr).toContain(describeOutcome(workload, outcome, loop));
      for (const c of plan.cases.filter((c) => c.workload === workload)) {
        const measured = own.filter((row) => row.case === c.id && !row.warmup);
        expect(
          measured.map((row) => row.repetition),
          c.id,
        ).toEqual(Array.from({ length: outcome.rounds }, (_, i) => i + 1));
        expect(own.filter((row) => row.case === c.id && row.warmup)).toHaveLength(c.params.warmup);
      }
    }
    // excursion 0 over 0.5 s of reads is never met: the strict rounds run to their max.
    expect(run.stderr).toContain(
      "workload strict on scratch: steady state not reached in 3 rounds (window: rounds 2–3)",
    );
    // Rounds interleave the cases: round 1 of both cases before round 2 of either.
    const loose = rows.filter((row) => row.workload === "loose" && !row.warmup).map((row) => row.repetition);
    expect(loose.slice(0, 4)).toEqual([1, 1, 2, 2]);
  }, 150_000);
});
