/**
 * What a user waits for at the command line: `benchspec validate` of every shipped spec, `benchspec plan`
 * of the PTS spec, and `benchspec run` of the quickstart end to end — wall seconds of the CLI process,
 * median of interleaved rounds. With BENCH_BASELINE=<checkout> (another benchspec checkout, built: its
 * bin/benchspec.js), the same commands of that build run in the same rounds, and each line is this build's
 * time over the baseline's: a change that slows the commands people run most shows here, not in a test.
 */
import { execa } from "execa";
import { readdirSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { config } from "./config.js";
import { ratioLine, type BenchLine } from "./lines.js";
import { benchspecCommand, ROOT } from "./paths.js";
import { median } from "./stats.js";

const SECTION = "command line";

interface Command {
  metric: string;
  args: (out: string) => string[];
}

const specs = readdirSync(join(ROOT, "specs"))
  .filter((f) => f.endsWith(".yaml"))
  .map((f) => join(ROOT, "specs", f));

/** Specs at the loader's limits (about 1 MiB): validation must stay near-linear in their size. */
async function largeSpecs(scratch: string): Promise<Command[]> {
  const file = (name: string) => join(scratch, `${name}.yaml`);
  const header = "benchspec: 1\nname: large\n";
  const bs = Array.from({ length: 10_000 }, (_, i) => `${i + 1}KiB`).join(", ");
  await writeFile(
    file("bs-list"),
    `${header}targets: { t: { kind: fs } }\nworkloads:\n  - { name: w, engine: fio, op: randread, size: 20GiB, bs: [${bs}] }\n`,
  );
  const vars = (n: number) => Array.from({ length: n }, (_, i) => `  v${i}: ${i}`).join("\n");
  const dd = "workloads:\n  - { name: w, engine: dd, op: write, bs: 1MiB, count: 1, target: t0 }\n";
  await writeFile(file("vars"), `${header}vars:\n${vars(60_000)}\ntargets: { t0: { kind: fs } }\n${dd}`);
  const targets = Array.from({ length: 4_000 }, (_, i) => `  t${i}: { kind: fs, vars: { v0: ${i} } }`).join(
    "\n",
  );
  await writeFile(file("target-vars"), `${header}vars:\n${vars(4_000)}\ntargets:\n${targets}\n${dd}`);
  return [
    { metric: "validate of one bs list of 10,000 values", args: () => ["validate", file("bs-list")] },
    { metric: "validate of 60,000 vars", args: () => ["validate", file("vars")] },
    {
      metric: "validate of 4,000 targets with vars × 4,000 vars",
      args: () => ["validate", file("target-vars")],
    },
  ];
}

const COMMANDS: Command[] = [
  { metric: `validate of the ${specs.length} shipped specs`, args: () => ["validate", ...specs] },
  {
    metric: "plan of specs/cloud-disk-pts.yaml",
    args: () => ["plan", join(ROOT, "specs", "cloud-disk-pts.yaml")],
  },
  {
    metric: "run of specs/quickstart.yaml (end to end)",
    args: (out) => ["run", join(ROOT, "specs", "quickstart.yaml"), "--out", out, "--quiet"],
  },
];

async function wall(file: string, args: string[]): Promise<number> {
  const started = performance.now();
  const result = await execa(file, args, { reject: false, stdin: "ignore" });
  if (result.exitCode !== 0)
    throw new Error(
      `${[file, ...args].join(" ")}: exit ${result.exitCode}: ${String(result.stderr).slice(-300)}`,
    );
  return (performance.now() - started) / 1000;
}

export async function benchCliTiming(scratch: string, log: (line: string) => void): Promise<BenchLine[]> {
  const ours = benchspecCommand();
  const baselineRoot = process.env.BENCH_BASELINE;
  const baseline = baselineRoot
    ? { file: process.execPath, args: [join(baselineRoot, "bin", "benchspec.js")] }
    : undefined;
  const rounds = config.quick ? 1 : 5;
  const lines: BenchLine[] = [];
  for (const command of [...COMMANDS, ...(await largeSpecs(scratch))]) {
    const mine: number[] = [];
    const theirs: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      const out = join(scratch, `cli-${round}`);
      mine.push(await wall(ours.file, [...ours.args, ...command.args(`${out}-new`)]));
      if (baseline)
        theirs.push(await wall(baseline.file, [...baseline.args, ...command.args(`${out}-base`)]));
      await rm(`${out}-new`, { recursive: true, force: true });
      await rm(`${out}-base`, { recursive: true, force: true });
    }
    log(
      `${command.metric}: ${median(mine).toFixed(2)} s${baseline ? ` (baseline ${median(theirs).toFixed(2)} s)` : ""}`,
    );
    const base = {
      section: SECTION,
      metric: command.metric,
      unit: "s",
      engine: median(mine),
      detail: { rounds: mine, ...(baseline && { baseline: theirs, baselineRoot }) },
    };
    lines.push(
      baseline
        ? ratioLine({ ...base, reference: median(theirs) }, { atMost: 1.05 })
        : { ...base, target: "set BENCH_BASELINE=<checkout> to compare", verdict: "INFO" },
    );
  }
  return lines;
}
