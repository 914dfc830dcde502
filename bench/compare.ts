/**
 * `benchspec compare` over 1,000,000 result rows per run (the report's scale), in two shapes:
 *   A. 10,000 cases × 100 repetitions (many small samples: per-case work dominates),
 *   B. 100 cases × 10,000 repetitions (few large samples: the statistics' cost in n dominates).
 * Two synthetic runs of the same plan with different noise are compared by the `benchspec` command the
 * bench uses (startup, loading and the verdict included); rows are written first and not counted. Then
 * `benchspec merge` makes the two runs of shape A one run of two hosts (its report included). Each
 * command's wall time and peak resident memory (VmHWM) against the bounds: 10 s and 1 GB.
 *
 *   npm run bench -- --only compare
 */
import { execa } from "execa";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { BenchLine } from "./lines.js";
import { benchspecCommand } from "./paths.js";
import { samplePeakRss } from "./proc.js";
import { fioMatrixPlan, writeRun } from "./synthetic-run.js";

const ROWS = 1_000_000;
const TARGET_SECONDS = 10;
const TARGET_RSS = 2 ** 30;

const tens = (scale: number) => Array.from({ length: 10 }, (_, i) => (i + 1) * scale);

const SHAPES: { name: string; matrix: Record<string, unknown[]> }[] = [
  {
    name: "A. 10,000 cases × 100 repetitions",
    matrix: {
      bs: tens(512).map((b) => `${b}B`),
      read: tens(10).map((r) => r - 10),
      iodepth: tens(1),
      jobs: tens(1),
    },
  },
  {
    name: "B. 100 cases × 10,000 repetitions",
    matrix: { bs: tens(512).map((b) => `${b}B`), read: tens(10).map((r) => r - 10) },
  },
];

export async function benchCompare(scratch: string, log: (line: string) => void): Promise<BenchLine[]> {
  const lines: BenchLine[] = [];
  for (const [index, shape] of SHAPES.entries()) {
    const plan = fioMatrixPlan(`compare-${index}`, shape.matrix);
    const [base, next] = [join(scratch, `compare-${index}-base`), join(scratch, `compare-${index}-new`)];
    for (const [dir, seed] of [
      [base, 1],
      [next, 2],
    ] as const) {
      await mkdir(dir);
      await writeRun(dir, plan, ROWS, 0, seed);
    }
    // 0: no regression, 1: the noise made one; anything else is the command failing.
    const compare = await timedCommand(["compare", base, next, "--json"], [0, 1]);
    log(`compare ${shape.name}: ${describe(compare)}`);
    lines.push(...commandLines(`compare ${shape.name}, 1,000,000 rows per run`, compare));
    if (index === 0) {
      const merge = await timedCommand(
        ["merge", `${base}=h1`, `${next}=h2`, "-o", join(scratch, "merged")],
        [0],
      );
      log(`merge ${shape.name}: ${describe(merge)}`);
      lines.push(...commandLines(`merge ${shape.name}, 1,000,000 rows per run`, merge));
    }
  }
  return lines;
}

interface Timed {
  seconds: number;
  peakRss: number;
  exitCode: number;
}

/** A benchspec command's wall time and peak RSS; an exit code not in `expected` is the command failing. */
async function timedCommand(args: string[], expected: readonly number[]): Promise<Timed> {
  const command = benchspecCommand();
  const started = performance.now();
  const child = execa(command.file, [...command.args, ...args], { reject: false, stdin: "ignore" });
  const rss = child.pid ? samplePeakRss(child.pid) : undefined;
  const result = await child;
  const seconds = (performance.now() - started) / 1000;
  const peakRss = rss?.stop() ?? NaN;
  const exitCode = result.exitCode ?? -1;
  if (!expected.includes(exitCode))
    throw new Error(`benchspec ${args[0]} exited with ${exitCode}: ${String(result.stderr)}`);
  return { seconds, peakRss, exitCode };
}

const describe = ({ seconds, peakRss, exitCode }: Timed) =>
  `${seconds.toFixed(2)} s, peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MiB (exit ${exitCode})`;

function commandLines(metric: string, { seconds, peakRss }: Timed): BenchLine[] {
  return [
    {
      section: "compare",
      metric,
      unit: "s",
      engine: seconds,
      target: `≤ ${TARGET_SECONDS} s (the report's scale)`,
      verdict: seconds <= TARGET_SECONDS ? "PASS" : "BELOW",
    },
    {
      section: "compare",
      metric: `${metric}: peak RSS`,
      unit: "MiB",
      engine: peakRss / 2 ** 20,
      target: `≤ ${TARGET_RSS / 2 ** 20} MiB`,
      verdict: peakRss <= TARGET_RSS ? "PASS" : "BELOW",
    },
  ];
}
