/**
 * fio and dd: the same jobs through `benchspec run` and by hand, on a tmpfs directory (so other load on
 * the disk does not decide the comparison). By hand means: dd with the arguments benchspec documents
 * (conv=fdatasync for writes, the page cache dropped with iflag=nocache before reads, a random source file),
 * fio with the jobfile `benchspec compile` writes (its documented way to run without benchspec). Numbers
 * are parsed here independently of benchspec's parsers. Overhead per case = (wall time of the whole
 * `benchspec run` − the tools' own wall time run by hand for the same repetitions) / cases; the start-up
 * of the benchspec process is reported on its own line.
 */
import { execa } from "execa";
import { randomFillSync } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { config } from "./config.js";
import { runBenchspec, rowsOf } from "./benchspec.js";
import { ratioLine, type BenchLine } from "./lines.js";
import { benchspecCommand } from "./paths.js";
import { timed } from "./proc.js";
import { MB, median } from "./stats.js";

const SECTION = "fio/dd vs by hand";

interface FsCase {
  workload: "dd" | "fio";
  op: "write" | "read" | "randread";
  /** The figure compared: dd and sequential fio by throughput, random fio by IOPS. */
  metric: "throughput" | "iops";
}

const CASES: FsCase[] = [
  { workload: "dd", op: "write", metric: "throughput" },
  { workload: "dd", op: "read", metric: "throughput" },
  { workload: "fio", op: "randread", metric: "iops" },
  { workload: "fio", op: "write", metric: "throughput" },
];

function fsSpec(): string {
  const { dd, fio } = config.fs;
  return `benchspec: 1
name: bench-fs
targets:
  scratch: { kind: fs, path: "\${env:BENCH_FS_DIR}" }
defaults:
  repeat: ${config.rounds}
workloads:
  - name: dd
    engine: dd
    op: [write, read]
    bs: ${dd.bs}B
    count: ${dd.count}
  - name: fio
    engine: fio
    op: [randread, write]
    bs: [4KiB]
    size: ${fio.size}B
    ioengine: psync
    duration: ${fio.seconds}s
    exclude_placeholder: 0
`.replace("    exclude_placeholder: 0\n", "");
}

export async function benchFs(scratch: string, log: (line: string) => void): Promise<BenchLine[]> {
  const dir = join(scratch, "fs-target");
  await mkdir(dir, { recursive: true });
  const env = { BENCH_FS_DIR: dir };
  const run = await runBenchspec(scratch, "fs", fsSpec(), env);
  const cases = new Set(run.rows.map((row) => row.case)).size;

  const byHand = await runByHand(scratch, dir, run.dir);
  const startup = await benchspecStartup();
  const toolSeconds = Object.values(byHand)
    .flatMap((samples) => samples.map((s) => s.wall))
    .reduce((a, b) => a + b, 0);
  const overhead = (run.wall - toolSeconds) / cases;
  log(
    `fs: benchspec run ${run.wall.toFixed(1)} s for ${cases} cases × ${config.rounds}; the tools by hand ${toolSeconds.toFixed(1)} s`,
  );

  const lines: BenchLine[] = CASES.map((c) => {
    const rows = rowsOf(run, c.workload, c.op);
    const engine = median(rows.map((row) => (c.metric === "iops" ? row.iops : row.throughput / MB)));
    const reference = median(byHand[key(c)]!.map((s) => (c.metric === "iops" ? s.iops : s.throughput / MB)));
    const line = ratioLine(
      {
        section: SECTION,
        metric: `${c.workload} ${c.op}`,
        unit: c.metric === "iops" ? "IOPS" : "MB/s",
        engine,
        reference,
        detail: {
          benchspec: rows.map((r) => ({ throughput: r.throughput, iops: r.iops, seconds: r.seconds })),
          byHand: byHand[key(c)],
        },
      },
      { atLeast: 0.9 },
    );
    // "the same numbers within noise": both directions count.
    const same = line.ratio !== undefined && line.ratio >= 0.9 && line.ratio <= 1.1;
    return {
      ...line,
      target: "ratio 0.9–1.1",
      verdict: line.ratio === undefined ? "FAILED" : same ? "PASS" : "BELOW",
    };
  });
  lines.push(
    {
      section: SECTION,
      metric: `overhead per case (${cases} cases × ${config.rounds} repetitions, one run)`,
      unit: "s",
      engine: overhead,
      target: "< 1 s",
      verdict: overhead < 1 ? "PASS" : "BELOW",
      note: `benchspec run ${run.wall.toFixed(2)} s − tools by hand ${toolSeconds.toFixed(2)} s, over ${cases} cases; includes process start, validation, compile, provenance and dd's unmeasured setup`,
    },
    {
      section: SECTION,
      metric: "benchspec process start (benchspec --version)",
      unit: "s",
      engine: startup,
      target: "(once per run)",
      verdict: "INFO",
    },
  );
  return lines;
}

const key = (c: Pick<FsCase, "workload" | "op">) => `${c.workload}.${c.op}`;

interface ByHand {
  wall: number;
  throughput: number;
  iops: number;
}

async function runByHand(
  scratch: string,
  runDir: string,
  benchspecRunDir: string,
): Promise<Record<string, ByHand[]>> {
  const { dd } = config.fs;
  const dir = join(runDir, "by-hand");
  await mkdir(dir, { recursive: true });
  const out: Record<string, ByHand[]> = {};
  const push = (k: string, s: ByHand) => (out[k] ??= []).push(s);
  const source = join(scratch, "dd-source");
  await writeFile(source, randomFillSync(Buffer.allocUnsafe(dd.bs * dd.count)));
  const file = join(dir, "dd.0");
  const ddArgs = [`bs=${dd.bs}`, `count=${dd.count}`];
  const ddSummary = (stderr: string) => {
    const match = /^(\d+) bytes\b.* copied, ([\d.e+-]+) s/m.exec(stderr);
    if (!match) throw new Error(`no dd summary in: ${stderr}`);
    return Number(match[1]) / Number(match[2]);
  };
  for (let r = 0; r < config.rounds; r++) {
    const write = await timed("dd", [`if=${source}`, `of=${file}`, ...ddArgs, "conv=fdatasync"], {
      env: { LC_ALL: "C" },
    });
    push("dd.write", { wall: write.wall, throughput: ddSummary(write.stderr), iops: NaN });
    await execa("dd", [`if=${file}`, "iflag=nocache", "count=0"]);
    const read = await timed("dd", [`if=${file}`, "of=/dev/null", ...ddArgs], { env: { LC_ALL: "C" } });
    push("dd.read", { wall: read.wall, throughput: ddSummary(read.stderr), iops: NaN });
  }
  // The jobfiles benchspec compiled for this run (its run directory holds the artifacts).
  for (const c of CASES.filter((c) => c.workload === "fio")) {
    const jobfile = join(benchspecRunDir, "fio", `fio.scratch.${c.op}.bs-4KiB.fio`);
    const jobfileAlt = join(benchspecRunDir, "fio", `fio.scratch.${c.op}.fio`);
    const path = await readFile(jobfile).then(
      () => jobfile,
      () => jobfileAlt,
    );
    for (let r = 0; r < config.rounds; r++) {
      const output = join(dir, `${c.op}.${r}.json`);
      const t0 = performance.now();
      const fio = await timed("fio", ["--output-format=json+", `--output=${output}`, path], {
        env: { BENCHSPEC_DIR: dir },
        cwd: dir,
      });
      const wall = fio.wall || (performance.now() - t0) / 1000;
      const json = JSON.parse(await readFile(output, "utf8")) as { jobs: { read: FioDir; write: FioDir }[] };
      const sum = (f: (d: FioDir) => number) => json.jobs.reduce((a, j) => a + f(j.read) + f(j.write), 0);
      push(key(c), { wall, throughput: sum((d) => d.bw_bytes), iops: sum((d) => d.iops) });
    }
  }
  return out;
}

interface FioDir {
  bw_bytes: number;
  iops: number;
}

/** Seconds for `benchspec --version`: loading the CLI, the fixed cost every run pays once. */
async function benchspecStartup(): Promise<number> {
  const command = benchspecCommand();
  const samples: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    await execa(command.file, [...command.args, "--version"]);
    samples.push((performance.now() - t0) / 1000);
  }
  return median(samples);
}
