/**
 * The engines measured the way users run them: `benchspec run` on a generated spec whose targets are the
 * bench's own MinIO/Kubo given as external endpoints (`${env:…}`), then its results.ndjson rows read back.
 */
import { execa } from "execa";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { readRows } from "../src/results/ndjson.js";
import type { ResultRow } from "../src/rows/row.js";
import { benchspecCommand } from "./paths.js";
import { samplePeakRss } from "./proc.js";

export interface BenchspecRun {
  dir: string;
  rows: ResultRow[];
  /** Wall seconds of the whole `benchspec run` process. */
  wall: number;
  /** Epoch milliseconds at the start and the end of the process. */
  startedAt: number;
  endedAt: number;
  /** Peak RSS of the benchspec process (VmHWM), bytes. */
  peakRss: number;
}

let counter = 0;

export async function runBenchspec(
  scratch: string,
  name: string,
  spec: string,
  env: Record<string, string> = {},
): Promise<BenchspecRun> {
  const id = `${name}-${++counter}`;
  const specFile = join(scratch, `${id}.yaml`);
  const dir = join(scratch, `${id}.run`);
  await writeFile(specFile, spec);
  const command = benchspecCommand();
  const startedAt = Date.now();
  const started = performance.now();
  const child = execa(command.file, [...command.args, "run", specFile, "--out", dir, "--quiet"], {
    env,
    reject: false,
    stdin: "ignore",
  });
  const rss = child.pid ? samplePeakRss(child.pid) : undefined;
  const result = await child;
  const wall = (performance.now() - started) / 1000;
  const endedAt = Date.now();
  const peakRss = rss?.stop() ?? NaN;
  const rows = readRows<ResultRow>(join(dir, "results.ndjson"));
  const failed = rows.find((row) => !row.ok);
  if (result.exitCode !== 0 || failed || rows.length === 0) {
    const why = failed
      ? `${failed.case}: ${failed.error}`
      : String(result.stderr).trim().split("\n").slice(-3).join(" | ");
    throw new Error(`benchspec run ${name} failed (exit ${result.exitCode}): ${why}`);
  }
  return { dir, rows: rows.filter((row) => !row.warmup), wall, startedAt, endedAt, peakRss };
}

/**
 * The same spec through `benchspec compile --target shell`: the compiled benchspec.sh run on its own
 * (benchspec is not involved while it runs), its stdout rows read back. PATH gets `extraPath` first (the
 * bench's own ipfs binary).
 */
export async function runCompiledScript(
  scratch: string,
  name: string,
  spec: string,
  env: Record<string, string> = {},
  extraPath?: string,
): Promise<BenchspecRun> {
  const id = `${name}-sh-${++counter}`;
  const specFile = join(scratch, `${id}.yaml`);
  const dir = join(scratch, `${id}.compiled`);
  const tmp = join(scratch, `${id}.tmp`);
  await writeFile(specFile, spec);
  await mkdir(tmp, { recursive: true });
  const command = benchspecCommand();
  await execa(command.file, [...command.args, "compile", specFile, "--target", "shell", "-o", dir], {
    env,
    stdin: "ignore",
  });
  const startedAt = Date.now();
  const started = performance.now();
  const path = extraPath ? `${extraPath}:${process.env.PATH}` : process.env.PATH!;
  const result = await execa("bash", [join(dir, "benchspec.sh")], {
    env: { ...env, PATH: path, TMPDIR: tmp },
    reject: false,
    stdin: "ignore",
  });
  const wall = (performance.now() - started) / 1000;
  const endedAt = Date.now();
  await rm(tmp, { recursive: true, force: true });
  const rows = String(result.stdout)
    .split("\n")
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as ResultRow);
  const failed = rows.find((row) => !row.ok);
  if (result.exitCode !== 0 || failed || rows.length === 0) {
    const why = failed
      ? `${failed.case}: ${failed.error}`
      : String(result.stderr).trim().split("\n").slice(-3).join(" | ");
    throw new Error(`compiled script ${name} failed (exit ${result.exitCode}): ${why}`);
  }
  return { dir, rows: rows.filter((row) => !row.warmup), wall, startedAt, endedAt, peakRss: NaN };
}

/** The rows of one workload and op, in repetition order. */
export const rowsOf = (run: BenchspecRun, workload: string, op: string) =>
  run.rows.filter((row) => row.workload === workload && row.op === op);
