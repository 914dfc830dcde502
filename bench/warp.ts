/**
 * S3: benchspec's engine (through `benchspec run`) vs warp, MinIO's own load generator, on the same MinIO.
 * Same object size, objects in flight and duration on both sides: `warp put` with a single PUT per object
 * and no client-side SHA-256 (as the engine: UNSIGNED-PAYLOAD), then `warp get --list-existing` over what
 * that put left (--noclear).
 * The engine's figure is bytes (ops) over its row's seconds; warp's is its own headline (bytes over its
 * measured window, from --benchdata). CPU per GiB, over the same span on both sides, from the first request's
 * start to the last one's end: the engine row's client CPU over its bytes; warp's CPU time over that span
 * of its run (sampled from /proc every 20 ms) over every byte it moved, so neither side's start-up or
 * analysis counts. Both bodies are generated in memory.
 *
 * MinIO keeps its data on tmpfs, which fills RAM (a 5 s PUT of 64 MiB objects writes ~3 GB), and memory
 * this VM has not touched recently is first written at ~230 MB/s: a warm-up round (not counted) touches
 * the pages the later rounds reuse, and each side's objects are deleted after it, so no counted round
 * pays first-touch page faults (MinIO's trash is emptied after every side, too). The warm-up's figures are
 * logged beside the counted ones to show it.
 *
 *   npm run bench -- --only warp
 */
import { execa } from "execa";
import { rm } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { runBenchspec, rowsOf } from "./benchspec.js";
import { config, GiB, MiB } from "./config.js";
import { ratioLine, type BenchLine } from "./lines.js";
import { s5cmdBinary, scratchParent, warpBinary, WARP_VERSION } from "./paths.js";
import { cpuWithin, timed } from "./proc.js";
import { MINIO_TARGET_YAML, type Servers } from "./servers.js";
import { emptySamples, figureOf, type Op, type Sample, type Samples, type Size } from "./s3-samples.js";
import { MB, median, medianOf } from "./stats.js";

const SECTION = `S3 vs warp ${WARP_VERSION}`;
/** warp's own bucket: what a warp round leaves is deleted after it without touching the engine's. */
const WARP_BUCKET = "warp";

export async function benchWarp(
  servers: Servers,
  scratch: string,
  log: (line: string) => void,
): Promise<BenchLine[]> {
  const { rounds, seconds } = config.warp;
  const shared = `server and clients on the same ${availableParallelism()} CPUs, over loopback; MinIO's data on tmpfs (${scratchParent()})`;
  log(`warp: ${shared}; ${seconds} s per op, ${rounds} rounds after a warm-up round`);
  const engine = emptySamples();
  const warp = emptySamples();
  let failed = 0;
  // Round 0 is the warm-up: same work, figures logged, not counted.
  for (let round = 0; round <= rounds; round++) {
    for (const size of ["large", "small"] as const) {
      // A side that fails (a timeout on an overloaded machine) drops the pair: rounds stay paired.
      const these = { engine: emptySamples(), warp: emptySamples() };
      const sides = [
        () => engineRound(servers, scratch, size, these.engine),
        () => warpRound(servers, scratch, size, these.warp),
      ];
      if (round % 2 === 0) sides.reverse();
      const name = round === 0 ? "warm-up" : `round ${round}`;
      try {
        for (const side of sides) {
          await side();
          await servers.emptyTrash();
        }
      } catch (error) {
        log(`warp ${name} ${size} failed, not counted: ${(error as Error).message.split("\n")[0]}`);
        if (++failed > rounds) throw error;
        continue;
      }
      const figure = (s: Sample | undefined) =>
        !s
          ? "—"
          : (size === "large"
              ? `${(s.throughput / MB).toFixed(0)} MB/s`
              : `${s.opsPerSecond.toFixed(0)} ops/s`) + ` (${s.cpuPerGiB.toFixed(3)} CPU-s/GiB)`;
      const [e, w] = [these.engine[size], these.warp[size]];
      log(
        `warp ${name} ${size}: engine PUT ${figure(e.put[0])} GET ${figure(e.get[0])}, warp PUT ${figure(w.put[0])} GET ${figure(w.get[0])}`,
      );
      if (round === 0) continue;
      for (const op of ["put", "get"] as const) {
        engine[size][op].push(...e[op]);
        warp[size][op].push(...w[op]);
      }
    }
  }

  const { large, small } = config.warp;
  const describe = {
    large: `${large.size / MiB} MiB, c=${large.concurrency}, ${seconds} s`,
    small: `4 KiB, c=${small.concurrency}, ${seconds} s`,
  };
  const lines: BenchLine[] = [];
  for (const size of ["large", "small"] as const) {
    for (const op of ["put", "get"] as const) {
      const [e, w] = [engine[size][op], warp[size][op]];
      const [unit, of] = figureOf(size);
      lines.push(
        ratioLine(
          {
            section: SECTION,
            metric: `${op.toUpperCase()} ${describe[size]}`,
            unit,
            engine: medianOf(e, of),
            reference: medianOf(w, of),
            detail: { engine: e, warp: w },
            note: `per round ${spread(e, w, of)}`,
          },
          { atLeast: 1.0 },
        ),
      );
    }
  }
  for (const size of ["large", "small"] as const) {
    for (const op of ["put", "get"] as const) {
      const [e, w] = [engine[size][op], warp[size][op]];
      const of = (s: Sample) => s.cpuPerGiB;
      lines.push(
        ratioLine(
          {
            section: SECTION,
            metric: `client CPU ${op.toUpperCase()} ${describe[size]}`,
            unit: "CPU-s/GiB",
            engine: medianOf(e, of),
            reference: medianOf(w, of),
            note: `per round ${spread(e, w, of)}`,
          },
          { atMost: 1.0 },
        ),
      );
    }
  }
  lines.push({
    section: SECTION,
    metric: "what both sides share",
    unit: "",
    target: "",
    verdict: "INFO",
    note: shared,
  });
  return lines;
}

/** Each round's engine/warp ratio (rounds are interleaved: a round's two figures are comparable), and their range. */
function spread(engine: Sample[], warp: Sample[], of: (s: Sample) => number): string {
  const ratios = engine.map((e, i) => of(e) / of(warp[i]!));
  return `${ratios.map((r) => r.toFixed(2)).join(" / ")} (median ${median(ratios).toFixed(2)})`;
}

function engineSpec(size: Size): string {
  const w = config.warp[size];
  return `benchspec: 1
name: bench-warp-${size}
targets:
${MINIO_TARGET_YAML}workloads:
  - name: ${size}
    op: [put, get]
    size: ${w.size}B
    objects: ${w.objects}
    concurrency: ${w.concurrency}
    duration: ${config.warp.seconds}s
`;
}

async function engineRound(servers: Servers, scratch: string, size: Size, into: Samples) {
  const run = await runBenchspec(scratch, `warp-${size}`, engineSpec(size), servers.env);
  for (const op of ["put", "get"] as const) {
    for (const row of rowsOf(run, size, op)) {
      into[size][op].push({
        throughput: row.bytes / row.seconds,
        opsPerSecond: row.ops / row.seconds,
        cpuPerGiB: row.client?.cpuPerGiB ?? NaN,
      });
    }
  }
  await rm(run.dir, { recursive: true, force: true });
}

/** What warp's --benchdata says of a run (its `total`). */
interface WarpTotal {
  total_bytes: number;
  /** The first request's start and the last one's end. */
  start_time: string;
  end_time: string;
  total_errors: number;
  throughput: { bytes: number; ops: number; measure_duration_millis: number };
}

let warpRuns = 0;

async function warpRound(servers: Servers, scratch: string, size: Size, into: Samples) {
  const { size: bytes, concurrency } = config.warp[size];
  const { minio } = servers;
  const common = [
    "--host",
    new URL(minio.endpoint).host,
    "--bucket",
    WARP_BUCKET,
    "--concurrent",
    String(concurrency),
    "--duration",
    `${config.warp.seconds}s`,
    "--noclear",
    "--no-color",
  ];
  // Credentials through warp's environment variables: argv is world-readable in /proc.
  const env = { WARP_ACCESS_KEY: minio.accessKey, WARP_SECRET_KEY: minio.secretKey };
  const run = async (op: Op, args: string[]) => {
    const data = join(scratch, `warp-${++warpRuns}`);
    const t = await timed(warpBinary(), [op, ...common, ...args, "--benchdata", data], {
      env,
      sampleCpu: 20,
    });
    const json = await execa("zstd", ["-dc", `${data}.json.zst`]);
    await rm(`${data}.json.zst`, { force: true });
    const { total } = JSON.parse(json.stdout) as { total: WarpTotal };
    if (total.total_errors > 0) throw new Error(`warp ${op}: ${total.total_errors} requests failed`);
    const window = total.throughput.measure_duration_millis / 1000;
    into[size][op].push({
      throughput: total.throughput.bytes / window,
      opsPerSecond: total.throughput.ops / window,
      cpuPerGiB:
        cpuWithin(t.cpuSamples!, Date.parse(total.start_time), Date.parse(total.end_time)) /
        (total.total_bytes / GiB),
    });
  };
  try {
    await run("put", ["--obj.size", String(bytes), "--disable-multipart", "--disable-sha256-payload"]);
    await run("get", ["--list-existing"]);
  } finally {
    await timed(s5cmdBinary(), ["--endpoint-url", minio.endpoint, "rm", `s3://${WARP_BUCKET}/*`], {
      env: servers.env,
      discardStdout: true,
    });
  }
}
