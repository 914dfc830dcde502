/**
 * `benchspec compare` over 1,000,000 result rows per run (the report's scale), in two shapes:
 *   A. 10,000 cases × 100 repetitions (many small samples: per-case work dominates),
 *   B. 100 cases × 10,000 repetitions (few large samples: the statistics' cost in n dominates).
 * Two synthetic runs of the same plan with different noise are compared by the `benchspec` command the
 * bench uses (startup, loading and the verdict included); rows are written first and not counted.
 *
 *   npm run bench -- --only compare
 */
import { execa } from "execa";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { BenchLine } from "./lines.js";
import { benchspecCommand } from "./paths.js";
import { fioMatrixPlan, writeRun } from "./synthetic-run.js";

const ROWS = 1_000_000;
const TARGET_SECONDS = 10;

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
  const command = benchspecCommand();
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
    const started = performance.now();
    const child = await execa(command.file, [...command.args, "compare", base, next, "--json"], {
      reject: false,
    });
    const seconds = (performance.now() - started) / 1000;
    // 0: no regression, 1: the noise made one; anything else is the command failing.
    if (child.exitCode !== 0 && child.exitCode !== 1)
      throw new Error(`compare exited with ${child.exitCode}: ${child.stderr}`);
    log(`compare ${shape.name}: ${seconds.toFixed(2)} s (exit ${child.exitCode})`);
    lines.push({
      section: "compare",
      metric: `${shape.name}, 1,000,000 rows per run`,
      unit: "s",
      engine: seconds,
      target: `≤ ${TARGET_SECONDS} s (the report's scale)`,
      verdict: seconds <= TARGET_SECONDS ? "PASS" : "BELOW",
    });
  }
  return lines;
}
