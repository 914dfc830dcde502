/**
 * `compile` of a 10,000-case matrix (issue 3: "well under a second"): loadSpec (parse, validate, expand)
 * and compilePlan for every target, in process, best of a few runs after one warm-up; plus the wall time
 * of the `benchspec compile` CLI writing the artifacts, for reference.
 */
import { execa } from "execa";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { compilePlan } from "../src/compile/compile.js";
import { ARTIFACT_FORMATS } from "../src/spec/words.js";
import { loadSpec } from "../src/engines/language.js";
import { config } from "./config.js";
import type { BenchLine } from "./lines.js";
import { benchspecCommand } from "./paths.js";
import { median } from "./stats.js";

/** side⁴ fio cases (10 × 10 × 10 × 10) on one fs target. */
function matrixSpec(cases: number): string {
  const side = Math.round(Math.sqrt(Math.sqrt(cases)));
  const list = (f: (i: number) => string) => `[${Array.from({ length: side }, (_, i) => f(i)).join(", ")}]`;
  return `benchspec: 1
name: bench-compile
targets:
  scratch: { kind: fs }
workloads:
  - name: sweep
    engine: fio
    op: randread
    duration: 10s
    matrix:
      size: ${list((i) => `${i + 1}GiB`)}
      bs: ${list((i) => `${4 * (i + 1)}KiB`)}
      iodepth: ${list((i) => String(2 ** i))}
      jobs: ${list((i) => String(i + 1))}
`;
}

export async function benchCompile(scratch: string): Promise<BenchLine[]> {
  const file = join(scratch, "compile-matrix.yaml");
  await writeFile(file, matrixSpec(config.compile.cases));
  const load: number[] = [];
  const compile: number[] = [];
  let cases = 0;
  let artifacts = 0;
  for (let i = 0; i < 4; i++) {
    const t0 = performance.now();
    const loaded = await loadSpec(file);
    const t1 = performance.now();
    if (!loaded.plan)
      throw new Error(`the matrix spec is invalid: ${loaded.diagnostics.map((d) => d.message).join("; ")}`);
    const output = await compilePlan(loaded.plan, ARTIFACT_FORMATS, "bench");
    const t2 = performance.now();
    cases = loaded.plan.cases.length;
    artifacts = output.artifacts.length;
    if (i === 0) continue; // warm-up
    load.push((t1 - t0) / 1000);
    compile.push((t2 - t1) / 1000);
  }
  const total = median(load.map((l, i) => l + compile[i]!));
  const command = benchspecCommand();
  const t0 = performance.now();
  await execa(command.file, [
    ...command.args,
    "compile",
    file,
    "--target",
    "all",
    "--out",
    join(scratch, "compile-out"),
  ]);
  const cli = (performance.now() - t0) / 1000;
  const line = (metric: string, value: number, target: string, pass?: boolean, note?: string): BenchLine => ({
    section: "compile",
    metric,
    unit: "s",
    engine: value,
    target,
    verdict: pass === undefined ? "INFO" : pass ? "PASS" : "BELOW",
    ...(note && { note }),
  });
  return [
    line(
      `loadSpec + compilePlan, ${cases.toLocaleString("en")} cases (in process)`,
      total,
      "< 1 s",
      total < 1,
      `${artifacts} artifacts (fio, shell, sdk, plan.json)`,
    ),
    line("  of which loadSpec (parse, validate, expand)", median(load), ""),
    line("  of which compilePlan (fio, shell, sdk)", median(compile), ""),
    line(
      "benchspec compile --target all (CLI, writes files)",
      cli,
      "",
      undefined,
      "includes process start and writing the artifacts",
    ),
  ];
}
