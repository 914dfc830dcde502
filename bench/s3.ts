/**
 * S3: benchspec's engine (through `benchspec run`) vs s5cmd against the same MinIO, rounds interleaved.
 * Both sides do the same work: one request per object (s5cmd with a part size above the object size),
 * the same number of objects in flight (`--numworkers` = concurrency), bodies read and discarded
 * (s5cmd `cat` to /dev/null). s5cmd uploads files from tmpfs; the engine generates its payloads.
 * Throughput is bytes over wall time on both sides (the engine's busy-window figure is kept in the detail).
 *
 * The compiled script (`benchspec compile --target shell`, run on its own) does the same workloads on the
 * same MinIO each round; its rows' bytes/seconds (start barrier release → last request end) are set beside
 * `benchspec run`'s: the script must give numbers a user can trust, within 20% either way.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { randomFillSync } from "node:crypto";
import { join } from "node:path";
import { config, GiB, MiB } from "./config.js";
import { runBenchspec, runCompiledScript, rowsOf } from "./benchspec.js";
import { rawGetCeiling } from "./ceiling.js";
import { ratioLine, type BenchLine } from "./lines.js";
import { s5cmdBinary } from "./paths.js";
import { timed } from "./proc.js";
import type { Servers } from "./servers.js";
import { BUCKET, MINIO_TARGET_YAML } from "./servers.js";
import { emptySamples, figureOf, type Op, type Sample, type Samples, type Size } from "./s3-samples.js";
import { MB, medianOf } from "./stats.js";

const SECTION = "S3 vs s5cmd";
const SCRIPT_SECTION = "S3: compiled script vs benchspec run";

export async function benchS3(
  servers: Servers,
  scratch: string,
  log: (line: string) => void,
): Promise<BenchLine[]> {
  const { large, small } = config.s3;
  const files = await sourceFiles(scratch);
  const engine = emptySamples();
  const reference = emptySamples();
  const script = emptySamples();
  for (let round = 1; round <= config.rounds; round++) {
    const sides = [
      () => engineRound(servers, scratch, engine),
      () => s5cmdRound(servers, files, round, reference),
      () => scriptRound(servers, scratch, script),
    ];
    if (round % 2 === 0) sides.reverse();
    for (const side of sides) {
      await side();
      await servers.emptyTrash();
    }
    log(
      `s3 round ${round}: engine PUT ${mbs(engine.large.put.at(-1))} GET ${mbs(engine.large.get.at(-1))}, s5cmd PUT ${mbs(reference.large.put.at(-1))} GET ${mbs(reference.large.get.at(-1))}, script PUT ${mbs(script.large.put.at(-1))} GET ${mbs(script.large.get.at(-1))}`,
    );
  }

  const ceiling = await rawGetCeiling(servers, files.large, large.concurrency, config.rounds);
  log(
    `s3 GET ceiling (raw node:net): ${ceiling.map((c) => `${(c.throughput / MB).toFixed(0)} MB/s`).join(", ")}`,
  );

  const lines: BenchLine[] = [];
  const describe = {
    large: `${large.size / MiB} MiB ×${large.objects}, c=${large.concurrency}`,
    small: `4 KiB ×${small.objects}, c=${small.concurrency}`,
  };
  for (const size of ["large", "small"] as const) {
    for (const op of ["put", "get"] as const) {
      const [e, r] = [engine[size][op], reference[size][op]];
      const detail = { engine: e, s5cmd: r };
      lines.push(
        size === "large"
          ? ratioLine(
              {
                section: SECTION,
                metric: `${op.toUpperCase()} ${describe[size]}`,
                unit: "MB/s",
                engine: medianOf(e, (s) => s.throughput / MB),
                reference: medianOf(r, (s) => s.throughput / MB),
                detail,
              },
              { atLeast: 1.0 },
            )
          : ratioLine(
              {
                section: SECTION,
                metric: `${op.toUpperCase()} ${describe[size]}`,
                unit: "ops/s",
                engine: medianOf(e, (s) => s.opsPerSecond),
                reference: medianOf(r, (s) => s.opsPerSecond),
                detail,
              },
              { atLeast: 0.8 },
            ),
      );
    }
  }
  for (const size of ["large", "small"] as const) {
    for (const op of ["put", "get"] as const) {
      const [s, e] = [script[size][op], engine[size][op]];
      const [unit, of] = figureOf(size);
      lines.push(
        ratioLine(
          {
            section: SCRIPT_SECTION,
            metric: `${op.toUpperCase()} ${describe[size]}: benchspec.sh (engine column) vs run (reference)`,
            unit,
            engine: medianOf(s, of),
            reference: medianOf(e, of),
            detail: { script: s, run: e },
          },
          // Too fast is as wrong as too slow: the script times the same requests on the same store.
          { within: [0.8, 1.2] },
        ),
      );
    }
  }
  for (const size of ["large", "small"] as const) {
    for (const op of ["put", "get"] as const) {
      lines.push(
        ratioLine(
          {
            section: SECTION,
            metric: `client CPU ${op.toUpperCase()} ${describe[size]}`,
            unit: "CPU-s/GiB",
            engine: medianOf(engine[size][op], (s) => s.cpuPerGiB),
            reference: medianOf(reference[size][op], (s) => s.cpuPerGiB),
          },
          { atMost: 1.0 },
        ),
      );
    }
  }
  for (const op of ["put", "get"] as const) {
    const samples = engine.large[op];
    const throughput = medianOf(samples, (s) => s.throughput);
    const elu = medianOf(samples, (s) => s.elu ?? NaN);
    const bound = elu > 0.9 && throughput < 1e9;
    lines.push({
      section: SECTION,
      metric: `engine event-loop utilization, ${op.toUpperCase()} ${describe.large}`,
      unit: "ELU",
      engine: elu,
      target: "≤ 0.9 below 1 GB/s",
      verdict: bound ? "BELOW" : "PASS",
      note: bound
        ? `client-bound at ${(throughput / MB).toFixed(0)} MB/s: the numbers measure benchspec`
        : undefined,
    });
  }
  const engineGet = medianOf(engine.large.get, (s) => s.throughput / MB);
  const ceilingGet = medianOf(ceiling, (s) => s.throughput / MB);
  lines.push(
    {
      section: SECTION,
      metric: `GET ${describe.large}: Node client ceiling (raw node:net, static read buffer)`,
      unit: "MB/s",
      engine: engineGet,
      reference: ceilingGet,
      ratio: engineGet / ceilingGet,
      target: "(what Node could do)",
      verdict: "INFO",
      detail: { ceiling },
    },
    {
      section: SECTION,
      metric: `client CPU GET ${describe.large}: Node client ceiling`,
      unit: "CPU-s/GiB",
      engine: medianOf(engine.large.get, (s) => s.cpuPerGiB),
      reference: medianOf(ceiling, (s) => s.cpuPerGiB),
      ratio: medianOf(engine.large.get, (s) => s.cpuPerGiB) / medianOf(ceiling, (s) => s.cpuPerGiB),
      target: "(what Node could do)",
      verdict: "INFO",
    },
  );
  return lines;
}

const mbs = (s: Sample | undefined) => (s ? `${(s.throughput / MB).toFixed(0)} MB/s` : "—");

function s3Spec(): string {
  const { large, small } = config.s3;
  const workload = (name: string, w: { size: number; objects: number; concurrency: number }) =>
    `  - name: ${name}\n    op: [put, get]\n    size: ${w.size}B\n    objects: ${w.objects}\n    concurrency: ${w.concurrency}\n`;
  return `benchspec: 1
name: bench-s3
targets:
${MINIO_TARGET_YAML}workloads:
${workload("large", large)}${workload("small", small)}`;
}

async function engineRound(servers: Servers, scratch: string, into: Samples) {
  const run = await runBenchspec(scratch, "s3", s3Spec(), servers.env);
  for (const size of ["large", "small"] as const) {
    for (const op of ["put", "get"] as const) {
      for (const row of rowsOf(run, size, op)) {
        into[size][op].push({
          throughput: row.bytes / row.seconds,
          opsPerSecond: row.ops / row.seconds,
          cpuPerGiB: row.client?.cpuPerGiB ?? NaN,
          busyThroughput: row.throughput,
          elu: row.client?.eventLoopUtilization,
        });
      }
    }
  }
}

/** The compiled script on the same spec: bytes (and ops) over its rows' seconds, as run's rows are read. */
async function scriptRound(servers: Servers, scratch: string, into: Samples) {
  const run = await runCompiledScript(scratch, "s3", s3Spec(), servers.env);
  for (const size of ["large", "small"] as const) {
    for (const op of ["put", "get"] as const) {
      for (const row of rowsOf(run, size, op)) {
        into[size][op].push({
          throughput: row.bytes / row.seconds,
          opsPerSecond: row.ops / row.seconds,
          cpuPerGiB: NaN,
        });
      }
    }
  }
}

interface SourceFiles {
  large: string[];
  small: string[];
}

/** s5cmd uploads files: random bytes on tmpfs, written once (unmeasured). */
async function sourceFiles(scratch: string): Promise<SourceFiles> {
  const make = async (size: Size) => {
    const { size: bytes, objects } = config.s3[size];
    const dir = join(scratch, "s5cmd-src", size);
    await mkdir(dir, { recursive: true });
    const files = Array.from({ length: objects }, (_, i) => join(dir, `o${i}`));
    for (const file of files) await writeFile(file, randomFillSync(Buffer.allocUnsafe(bytes)));
    return files;
  };
  return { large: await make("large"), small: await make("small") };
}

async function s5cmdRound(servers: Servers, files: SourceFiles, round: number, into: Samples) {
  const s5cmd = s5cmdBinary();
  const prefix = `s3://${BUCKET}/s5cmd/r${round}`;
  const env = { ...servers.env, S3_ENDPOINT_URL: servers.minio.endpoint };
  // One request per object: a part size (MiB) above the object size, one part in flight per object.
  const single = `-c 1 -p ${Math.ceil((2 * config.s3.large.size) / MiB)}`;
  for (const size of ["large", "small"] as const) {
    const { size: bytes, objects, concurrency } = config.s3[size];
    const keys = files[size].map((_, i) => `${prefix}/${size}/o${i}`);
    const run = async (op: Op, commands: string[]) => {
      const file = join(files[size][0]!, "..", `${op}-r${round}.txt`);
      await writeFile(file, commands.join("\n") + "\n");
      const t = await timed(
        s5cmd,
        ["--endpoint-url", servers.minio.endpoint, "--numworkers", String(concurrency), "run", file],
        {
          env,
          discardStdout: true,
        },
      );
      const total = bytes * objects;
      into[size][op].push({
        throughput: total / t.wall,
        opsPerSecond: objects / t.wall,
        cpuPerGiB: t.cpu / (total / GiB),
      });
    };
    await run(
      "put",
      files[size].map((f, i) => `cp ${single} ${f} ${keys[i]}`),
    );
    await run(
      "get",
      keys.map((k) => `cat ${single} ${k}`),
    );
    await timed(s5cmd, ["--endpoint-url", servers.minio.endpoint, "rm", `${prefix}/${size}/*`], {
      env,
      discardStdout: true,
    });
  }
}
