/**
 * The compiled script against `benchspec run` where the script does more than one request list or one fio:
 * an S3 `mixed` load (gets, stats, puts and deletes interleaved in one curl queue, on the bench's MinIO)
 * and a fio workload in rounds to steady state (judged in awk by the script, in TypeScript by run), on a
 * tmpfs directory. Both sides run the same spec, rounds interleaved; the script must give numbers a user
 * can trust, within 20 % either way.
 * Figures: the mixed case's operations per second (all kinds, ops over the row's seconds); the rounds
 * case's IOPS averaged over the rounds it ran, beside the rounds each side ran.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { config } from "./config.js";
import { runBenchspec, runCompiledScript, rowsOf, type BenchspecRun } from "./benchspec.js";
import { ratioLine, type BenchLine } from "./lines.js";
import { MINIO_TARGET_YAML, type Servers } from "./servers.js";
import { median, medianOf } from "./stats.js";

const SECTION = "compiled script vs benchspec run: mixed and rounds";

interface Figures {
  mixedOps: number;
  roundsIops: number;
  rounds: number;
}

function scriptSpec(): string {
  const { mixed, rounds } = config.script;
  return `benchspec: 1
name: bench-script
targets:
${MINIO_TARGET_YAML}  scratch: { kind: fs, path: "\${env:BENCH_FS_DIR}" }
workloads:
  - name: mixed
    target: minio
    op: mixed
    size: ${mixed.size}B
    objects: ${mixed.objects}
    concurrency: ${mixed.concurrency}
  - name: steady
    target: scratch
    engine: fio
    op: randread
    bs: 4KiB
    size: ${rounds.size}B
    ioengine: psync
    duration: ${rounds.seconds}s
    rounds: { track: { where: { bs: 4KiB }, metric: iops }, window: 3, max: ${rounds.max}, excursion: 20%, slope: 10% }
`;
}

function figuresOf(run: BenchspecRun): Figures {
  const [mixed] = rowsOf(run, "mixed", "mixed");
  const steady = rowsOf(run, "steady", "randread");
  if (!mixed || steady.length === 0) throw new Error(`${run.dir}: no mixed or rounds rows`);
  return {
    mixedOps: mixed.ops / mixed.seconds,
    roundsIops: steady.reduce((sum, row) => sum + row.iops, 0) / steady.length,
    rounds: steady.length,
  };
}

export async function benchScript(
  servers: Servers,
  scratch: string,
  log: (line: string) => void,
): Promise<BenchLine[]> {
  const dir = join(scratch, "script-target");
  await mkdir(dir, { recursive: true });
  const env = { ...servers.env, BENCH_FS_DIR: dir };
  const run: Figures[] = [];
  const script: Figures[] = [];
  for (let round = 1; round <= config.rounds; round++) {
    const sides = [
      async () => run.push(figuresOf(await runBenchspec(scratch, "script-run", scriptSpec(), env))),
      async () => script.push(figuresOf(await runCompiledScript(scratch, "script", scriptSpec(), env))),
    ];
    if (round % 2 === 0) sides.reverse();
    for (const side of sides) {
      await side();
      await servers.emptyTrash();
    }
    const [r, s] = [run.at(-1)!, script.at(-1)!];
    log(
      `script round ${round}: mixed ${s.mixedOps.toFixed(0)} vs run ${r.mixedOps.toFixed(0)} ops/s; rounds ${s.roundsIops.toFixed(0)} IOPS in ${s.rounds} rounds vs run ${r.roundsIops.toFixed(0)} in ${r.rounds}`,
    );
  }
  const { mixed, rounds } = config.script;
  const line = (metric: string, unit: string, of: (f: Figures) => number) =>
    ratioLine(
      {
        section: SECTION,
        metric: `${metric}: benchspec.sh (engine column) vs run (reference)`,
        unit,
        engine: medianOf(script, of),
        reference: medianOf(run, of),
        detail: { script, run },
      },
      // Too fast is as wrong as too slow: both time the same requests on the same store.
      { within: [0.8, 1.2] },
    );
  return [
    line(
      `s3 mixed (default mix) ${mixed.size / 1024} KiB ×${mixed.objects}, c=${mixed.concurrency}`,
      "ops/s",
      (f) => f.mixedOps,
    ),
    line(
      `fio randread 4 KiB psync in rounds (window 3, at most ${rounds.max}; median rounds run: script ${median(script.map((f) => f.rounds))}, run ${median(run.map((f) => f.rounds))})`,
      "IOPS",
      (f) => f.roundsIops,
    ),
  ];
}
