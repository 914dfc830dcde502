/**
 * fio and dd: the same jobs through `benchspec run` and by hand, on a tmpfs directory (so other load on the
 * disk does not decide the comparison), rounds interleaved. By hand means: dd with the arguments benchspec
 * documents (conv=fdatasync for writes, the page cache dropped with iflag=nocache before reads, a random
 * source file), fio with the case's section of the jobfile benchspec compiled for the run (`BENCHSPEC_DIR=… fio
 * --output-format=json+ --section=<case> <workload>.fio`, its documented way to run without benchspec). Figures are parsed here, not
 * with benchspec's parsers. Overhead per case = (wall time of `benchspec run` − the tools' own wall time
 * by hand for the same cases) / cases, per round; where that time goes is taken from the rows' timestamps.
 */
import { execa } from "execa";
import { randomFillSync } from "node:crypto";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { config } from "./config.js";
import { runBenchspec, type BenchspecRun } from "./benchspec.js";
import { ratioLine, type BenchLine } from "./lines.js";
import { benchspecCommand } from "./paths.js";
import { timed } from "./proc.js";
import { MB, median, medianOf } from "./stats.js";
import { maxOf } from "../src/rows/stats.js";

const SECTION = "fio/dd vs by hand";

interface FsCase {
  workload: "dd" | "fio-rand" | "fio-seq";
  op: "write" | "read" | "randread";
  /** The figure compared: dd and sequential fio by throughput, random fio by IOPS. */
  metric: "throughput" | "iops";
}

const CASES: FsCase[] = [
  { workload: "dd", op: "write", metric: "throughput" },
  { workload: "dd", op: "read", metric: "throughput" },
  { workload: "fio-rand", op: "randread", metric: "iops" },
  { workload: "fio-seq", op: "write", metric: "throughput" },
];
const key = (c: Pick<FsCase, "workload" | "op">) => `${c.workload}.${c.op}`;

function fsSpec(): string {
  const { dd, fio } = config.fs;
  return `benchspec: 1
name: bench-fs
targets:
  scratch: { kind: fs, path: "\${env:BENCH_FS_DIR}" }
workloads:
  - name: dd
    engine: dd
    op: [write, read]
    bs: ${dd.bs}B
    count: ${dd.count}
  - name: fio-rand
    engine: fio
    op: randread
    bs: 4KiB
    size: ${fio.size}B
    ioengine: psync
    duration: ${fio.seconds}s
  - name: fio-seq
    engine: fio
    op: write
    bs: 1MiB
    size: ${fio.size}B
    ioengine: psync
    duration: ${fio.seconds}s
`;
}

interface Figure {
  /** Wall seconds of the tool process (by hand) or of the repetition (benchspec's row). */
  seconds: number;
  throughput: number;
  iops: number;
  /** benchspec's dd rows: dd's own figure (from its summary, in the row's jobs) beside the row's aggregate. */
  ownThroughput?: number;
}

interface Round {
  benchspec: Record<string, Figure>;
  byHand: Record<string, Figure>;
  /** seconds: the whole benchspec run, its parts, and the tools by hand */
  wall: number;
  toolSeconds: number;
  beforeFirst: number;
  between: number;
  afterLast: number;
}

export async function benchFs(scratch: string, log: (line: string) => void): Promise<BenchLine[]> {
  const dir = join(scratch, "fs-target");
  const handDir = join(scratch, "fs-by-hand");
  await mkdir(dir, { recursive: true });
  await mkdir(handDir, { recursive: true });
  const source = join(scratch, "dd-source");
  await writeFile(source, randomFillSync(Buffer.allocUnsafe(config.fs.dd.bs * config.fs.dd.count)));
  const rounds: Round[] = [];
  let jobfiles: Record<string, { file: string; section: string }> = {};
  for (let r = 1; r <= config.fs.rounds; r++) {
    const viaBenchspec = async () => {
      const run = await runBenchspec(scratch, "fs", fsSpec(), { BENCH_FS_DIR: dir });
      // The jobfiles benchspec compiled (the same in every round) are what fio runs by hand.
      jobfiles = Object.fromEntries(
        run.rows.map((row) => [
          `${row.workload}.${row.op}`,
          { file: join(run.dir, "fio", `${row.workload}.fio`), section: row.case },
        ]),
      );
      return run;
    };
    // Even rounds go by hand first, so neither side always runs on a warmer (or busier) machine.
    const handFirst = r % 2 === 0;
    const early = handFirst ? await runByHand(handDir, source, jobfiles) : undefined;
    const run = await viaBenchspec();
    const byHand = early ?? (await runByHand(handDir, source, jobfiles));
    rounds.push(roundOf(run, byHand));
    const last = rounds.at(-1)!;
    log(
      `fs round ${r}: benchspec run ${last.wall.toFixed(1)} s, the same tools by hand ${last.toolSeconds.toFixed(1)} s`,
    );
  }
  const startup = await benchspecStartup();

  const lines: BenchLine[] = CASES.map((c) => {
    const pick = (f: Figure) => (c.metric === "iops" ? f.iops : f.throughput / MB);
    const engine = medianOf(rounds, (round) => pick(round.benchspec[key(c)]!));
    const reference = medianOf(rounds, (round) => pick(round.byHand[key(c)]!));
    const line = ratioLine(
      {
        section: SECTION,
        metric: `${c.workload === "dd" ? "dd" : "fio"} ${c.op}`,
        unit: c.metric === "iops" ? "IOPS" : "MB/s",
        engine,
        reference,
        detail: {
          rounds: rounds.map((round) => ({
            benchspec: round.benchspec[key(c)],
            byHand: round.byHand[key(c)],
          })),
        },
      },
      // "the same numbers within noise": a figure too high is as wrong as one too low.
      { within: [0.9, 1.1] },
    );
    if (c.workload === "dd") {
      const own = medianOf(rounds, (round) => round.benchspec[key(c)]!.ownThroughput ?? NaN) / MB;
      line.note = `dd's own figure inside benchspec's row (jobs[0]) ${own.toFixed(0)} MB/s; the row's aggregate is bytes over barrier release → last exit`;
    }
    return line;
  });
  const cases = CASES.length;
  const overhead = medianOf(rounds, (round) => (round.wall - round.toolSeconds) / cases);
  const part = (f: (round: Round) => number) => medianOf(rounds, f).toFixed(2);
  lines.push(
    {
      section: SECTION,
      metric: `overhead per case (${cases} cases, one run each round)`,
      unit: "s",
      engine: overhead,
      target: "< 1 s",
      verdict: overhead < 1 ? "PASS" : "BELOW",
      note:
        `benchspec run ${part((r) => r.wall)} s − the tools by hand ${part((r) => r.toolSeconds)} s, over ${cases} cases. ` +
        `Start → first repetition ${part((r) => r.beforeFirst)} s (process start, validate, compile, provenance, target, first prepare); ` +
        `between repetitions ${part((r) => r.between)} s (dd source files, dd read setup, cache drops, process starts); ` +
        `after the last ${part((r) => r.afterLast)} s`,
      detail: { rounds },
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

function roundOf(run: BenchspecRun, byHand: Record<string, Figure>): Round {
  const rows = [...run.rows].sort((a, b) => Date.parse(a.start) - Date.parse(b.start));
  const starts = rows.map((row) => Date.parse(row.start));
  const ends = rows.map((row) => Date.parse(row.end));
  const measured = rows.reduce((sum, row) => sum + row.seconds, 0);
  const beforeFirst = (starts[0]! - run.startedAt) / 1000;
  const afterLast = (run.endedAt - maxOf(ends)) / 1000;
  return {
    benchspec: Object.fromEntries(
      rows.map((row) => [
        `${row.workload}.${row.op}`,
        {
          seconds: row.seconds,
          throughput: row.throughput,
          iops: row.iops,
          ...(row.jobs?.[0] && { ownThroughput: row.jobs[0].throughput }),
        },
      ]),
    ),
    byHand,
    wall: run.wall,
    toolSeconds: Object.values(byHand).reduce((sum, f) => sum + f.seconds, 0),
    beforeFirst,
    between: run.wall - beforeFirst - afterLast - measured,
    afterLast,
  };
}

async function runByHand(
  dir: string,
  source: string,
  jobfiles: Record<string, { file: string; section: string }>,
): Promise<Record<string, Figure>> {
  const { dd } = config.fs;
  const out: Record<string, Figure> = {};
  const file = join(dir, "dd.0");
  const ddArgs = [`bs=${dd.bs}`, `count=${dd.count}`];
  const ddFigure = (t: { wall: number; stderr: string }): Figure => {
    const match = /^(\d+) bytes\b.* copied, ([\d.e+-]+) s/m.exec(t.stderr);
    if (!match) throw new Error(`no dd summary in: ${t.stderr}`);
    const throughput = Number(match[1]) / Number(match[2]);
    return { seconds: t.wall, throughput, iops: throughput / dd.bs };
  };
  const env = { LC_ALL: "C" };
  // Fresh files, as benchspec's tools get in its new run directory: overwriting the previous round's files
  // would reuse pages already touched, which on this VM is several times faster than new ones.
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir);
  out["dd.write"] = ddFigure(
    await timed("dd", [`if=${source}`, `of=${file}`, ...ddArgs, "conv=fdatasync"], { env }),
  );
  await execa("dd", [`if=${file}`, "iflag=nocache", "count=0"]);
  out["dd.read"] = ddFigure(await timed("dd", [`if=${file}`, "of=/dev/null", ...ddArgs], { env }));
  for (const c of CASES.filter((c) => c.workload !== "dd")) {
    const output = join(dir, `${c.workload}.json`);
    const t0 = performance.now();
    const { file: jobfile, section } = jobfiles[key(c)]!;
    const fio = await timed(
      "fio",
      ["--output-format=json+", `--output=${output}`, `--section=${section}`, jobfile],
      {
        env: { BENCHSPEC_DIR: dir },
        cwd: dir,
      },
    );
    const json = JSON.parse(await readFile(output, "utf8")) as { jobs: { read: FioDir; write: FioDir }[] };
    const sum = (f: (d: FioDir) => number) => json.jobs.reduce((a, j) => a + f(j.read) + f(j.write), 0);
    out[key(c)] = {
      seconds: fio.wall || (performance.now() - t0) / 1000,
      throughput: sum((d) => d.bw_bytes),
      iops: sum((d) => d.iops),
    };
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
