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
 * The first `nullRounds` rounds also run both sides, the same way, against a null S3 server (null-s3.ts: it
 * drops PUT bodies, serves GETs from one static buffer, in a process of its own), for each client's
 * ceiling on this machine: INFO lines give both sides' figures there, and each side's MinIO figure as a
 * share of its own.
 *
 *   npm run bench -- --only warp
 */
import { execa } from "execa";
import { rm } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { runBenchspec, rowsOf } from "./benchspec.js";
import { config, GiB, MiB } from "./config.js";
import { failedLine, ratioLine, type BenchLine } from "./lines.js";
import { launchNullS3 } from "./null-s3.js";
import { ROOT, s5cmdBinary, scratchParent, warpBinary, WARP_VERSION } from "./paths.js";
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
  const { rounds, seconds, nullRounds } = config.warp;
  const shared = `server and clients on the same ${availableParallelism()} CPUs, over loopback; MinIO's data on tmpfs (${scratchParent()})`;
  log(
    `warp: ${shared}; ${seconds} s per op, ${rounds} rounds after a warm-up round, the first ${nullRounds} also against the null S3 server`,
  );
  const minio = minioStore(servers);
  const engine = emptySamples();
  const warp = emptySamples();
  const ceiling = { engine: emptySamples(), warp: emptySamples() };
  const nullServer = nullRounds > 0 ? await launchNullS3(ROOT) : undefined;
  let failed = 0;
  try {
    const nullStore = nullServer && {
      ...minio,
      endpoint: nullServer.endpoint,
      env: { ...servers.env, BENCH_S3_ENDPOINT: nullServer.endpoint },
      afterSide: async () => {},
    };
    // Round 0 is the warm-up: same work, figures logged, not counted.
    for (let round = 0; round <= rounds; round++) {
      for (const size of ["large", "small"] as const) {
        const stores: [string, Store, { engine: Samples; warp: Samples }][] = [["", minio, { engine, warp }]];
        if (nullStore && round >= 1 && round <= nullRounds) stores.push([" null server", nullStore, ceiling]);
        for (const [where, store, into] of stores) {
          const name = `${round === 0 ? "warm-up" : `round ${round}`} ${size}${where}`;
          // A side that fails (a timeout on an overloaded machine) drops the pair: rounds stay paired.
          const these = { engine: emptySamples(), warp: emptySamples() };
          const sides = [
            () => engineRound(store, scratch, size, these.engine),
            () => warpRound(store, scratch, size, these.warp),
          ];
          if (round % 2 === 0) sides.reverse();
          try {
            for (const side of sides) {
              await side();
              await store.afterSide();
            }
          } catch (error) {
            log(`warp ${name} failed, not counted: ${(error as Error).message.split("\n")[0]}`);
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
            `warp ${name}: engine PUT ${figure(e.put[0])} GET ${figure(e.get[0])}, warp PUT ${figure(w.put[0])} GET ${figure(w.get[0])}`,
          );
          if (round === 0) continue;
          for (const op of ["put", "get"] as const) {
            into.engine[size][op].push(...e[op]);
            into.warp[size][op].push(...w[op]);
          }
        }
      }
    }
  } finally {
    const totals = await nullServer?.stop();
    if (totals)
      log(
        `warp null server: ${totals.cpu.toFixed(1)} CPU-s (start-up included) for ${totals.requests} requests, ${(totals.in / GiB).toFixed(1)} GiB in, ${(totals.out / GiB).toFixed(1)} GiB out: ${(totals.cpu / ((totals.in + totals.out) / GiB)).toFixed(3)} CPU-s/GiB`,
      );
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
          { atLeast: 1.1 },
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
          { atMost: 0.8 },
        ),
      );
    }
  }
  if (nullServer) lines.push(...ceilingLines({ engine, warp }, ceiling, describe));
  lines.push(...(await openLoop(minio, scratch, log)));
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

/**
 * The client-only ceiling: each side against the null S3 server (its figure, median of the null rounds), and
 * each side's MinIO figure as a share of its own null-server figure — how much of what this machine allows
 * the client alone it keeps with MinIO beside it.
 */
function ceilingLines(
  minio: { engine: Samples; warp: Samples },
  ceiling: { engine: Samples; warp: Samples },
  describe: Record<Size, string>,
): BenchLine[] {
  const lines: BenchLine[] = [];
  for (const size of ["large", "small"] as const) {
    for (const op of ["put", "get"] as const) {
      const [e, w] = [ceiling.engine[size][op], ceiling.warp[size][op]];
      const [unit, of] = figureOf(size);
      const [engineCeiling, warpCeiling] = [medianOf(e, of), medianOf(w, of)];
      const cpu = (samples: Sample[]) => medianOf(samples, (s) => s.cpuPerGiB).toFixed(3);
      const info = { section: SECTION, target: "", verdict: "INFO" as const };
      lines.push({
        ...info,
        metric: `null server: ${op.toUpperCase()} ${describe[size]}`,
        unit,
        engine: engineCeiling,
        reference: warpCeiling,
        ratio: engineCeiling / warpCeiling,
        detail: { engine: e, warp: w },
        note: `client only (the server stores nothing); client CPU engine ${cpu(e)}, warp ${cpu(w)} CPU-s/GiB; per round ${spread(e, w, of)}`,
      });
      lines.push({
        ...info,
        metric: `MinIO / null server: ${op.toUpperCase()} ${describe[size]}`,
        unit: "%",
        engine: (100 * medianOf(minio.engine[size][op], of)) / engineCeiling,
        reference: (100 * medianOf(minio.warp[size][op], of)) / warpCeiling,
        note: "each side's MinIO figure over its own null-server figure",
      });
    }
  }
  return lines;
}

/** Where a round runs: the bench's MinIO, or the null S3 server. */
interface Store {
  endpoint: string;
  accessKey: string;
  secretKey: string;
  /** The engine's and s5cmd's environment (Servers.env), its endpoint this store's. */
  env: Record<string, string>;
  /** After each side: MinIO's trash is emptied (see Servers.emptyTrash). */
  afterSide(): Promise<void>;
}

const minioStore = ({ minio, env, emptyTrash }: Servers): Store => ({
  endpoint: minio.endpoint,
  accessKey: minio.accessKey,
  secretKey: minio.secretKey,
  env,
  afterSide: emptyTrash,
});

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

async function engineRound(store: Store, scratch: string, size: Size, into: Samples) {
  const run = await runBenchspec(scratch, `warp-${size}`, engineSpec(size), store.env);
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

interface OpenLoopSample {
  /** Operations started per second. */
  achieved: number;
  /** p99 from each operation's start (a service time), and the engine's from its due instant. */
  serviceP99: number;
  responseP99?: number;
}

/**
 * Open loop, the same rate on both sides: 4 KiB PUTs at `openLoop.rate` per second, warp with --rps-limit
 * (a token bucket its workers wait on: its latencies are service times) and the engine with `rate` (due
 * instants: its latency is the response time, its serviceTime beside it). Lines: the rate each kept, and
 * p99 side by side.
 */
async function openLoop(store: Store, scratch: string, log: (line: string) => void): Promise<BenchLine[]> {
  const o = config.warp.openLoop;
  const { seconds } = config.warp;
  const engine: OpenLoopSample[] = [];
  const warp: OpenLoopSample[] = [];
  const spec = `benchspec: 1
name: bench-open-loop
targets:
${MINIO_TARGET_YAML}workloads:
  - name: open
    op: put
    size: ${o.size}B
    objects: ${o.objects}
    concurrency: ${o.concurrency}
    rate: ${o.rate}
    duration: ${seconds}s
`;
  const sides = [
    async () => {
      const run = await runBenchspec(scratch, "warp-open-loop", spec, store.env);
      const [row] = rowsOf(run, "open", "put");
      if (!row?.schedule || !row.serviceTime?.p99 || !row.latency?.p99) throw new Error("no open-loop row");
      engine.push({
        achieved: row.schedule.achieved,
        serviceP99: row.serviceTime.p99,
        responseP99: row.latency.p99,
      });
      await rm(run.dir, { recursive: true, force: true });
    },
    async () => {
      const { total } = await warpRun(store, scratch, "put", [
        ...["--concurrent", String(o.concurrency), "--duration", `${seconds}s`, "--obj.size", String(o.size)],
        ...["--rps-limit", String(o.rate), "--disable-multipart", "--disable-sha256-payload"],
      ]);
      const requests = Object.values(total.requests_by_client ?? {}).flat();
      const p99 = requests[0]?.single_sized_requests?.dur_99_millis;
      if (requests.length !== 1 || p99 === undefined) throw new Error("warp gave no single p99");
      const span = (Date.parse(total.end_time) - Date.parse(total.start_time)) / 1000;
      warp.push({ achieved: total.total_requests / span, serviceP99: p99 / 1000 });
    },
  ];
  for (let round = 1; round <= o.rounds; round++) {
    try {
      for (const side of round % 2 === 0 ? [...sides].reverse() : sides) {
        await side();
        await store.afterSide();
      }
      log(
        `warp open loop round ${round}: engine ${engine.at(-1)!.achieved.toFixed(0)}/s p99 ${(engine.at(-1)!.serviceP99 * 1000).toFixed(2)} ms (response ${(engine.at(-1)!.responseP99! * 1000).toFixed(2)} ms), warp ${warp.at(-1)!.achieved.toFixed(0)}/s p99 ${(warp.at(-1)!.serviceP99 * 1000).toFixed(2)} ms`,
      );
    } catch (error) {
      return [failedLine(SECTION, "open loop", error)];
    } finally {
      await emptyWarpBucket(store);
    }
  }
  const what = `PUT 4 KiB at ${o.rate}/s, c=${o.concurrency}, ${seconds} s`;
  const of = (key: "achieved" | "serviceP99") => (s: OpenLoopSample) => s[key];
  return [
    ratioLine(
      {
        section: SECTION,
        metric: `open loop ${what}: rate kept`,
        unit: "ops/s",
        engine: medianOf(engine, of("achieved")),
        reference: medianOf(warp, of("achieved")),
        note: `operations started per second; asked ${o.rate}`,
      },
      { atLeast: 0.98 },
    ),
    ratioLine(
      {
        section: SECTION,
        metric: `open loop ${what}: p99 service time`,
        unit: "s",
        engine: medianOf(engine, of("serviceP99")),
        reference: medianOf(warp, of("serviceP99")),
        note: `from each request's start, both sides; the engine's response-time p99 (from each due instant, which warp does not measure) ${(medianOf(engine, (s) => s.responseP99!) * 1000).toFixed(2)} ms`,
      },
      { atMost: 1.0 },
    ),
  ];
}

/** What warp's --benchdata says of a run (its `total`). */
interface WarpTotal {
  total_requests: number;
  requests_by_client?: Record<string, { single_sized_requests?: { dur_99_millis: number } }[]>;
  total_bytes: number;
  /** The first request's start and the last one's end. */
  start_time: string;
  end_time: string;
  total_errors: number;
  throughput: { bytes: number; ops: number; measure_duration_millis: number };
}

let warpRuns = 0;

/** One warp run on a store and warp's bucket: its --benchdata total and its CPU samples. */
async function warpRun(store: Store, scratch: string, op: Op, args: string[]) {
  const data = join(scratch, `warp-${++warpRuns}`);
  const where = ["--host", new URL(store.endpoint).host, "--bucket", WARP_BUCKET, "--noclear", "--no-color"];
  // Credentials through warp's environment variables: argv is world-readable in /proc.
  const env = { WARP_ACCESS_KEY: store.accessKey, WARP_SECRET_KEY: store.secretKey };
  const t = await timed(warpBinary(), [op, ...where, ...args, "--benchdata", data], { env, sampleCpu: 20 });
  const json = await execa("zstd", ["-dc", `${data}.json.zst`]);
  await rm(`${data}.json.zst`, { force: true });
  const { total } = JSON.parse(json.stdout) as { total: WarpTotal };
  if (total.total_errors > 0) throw new Error(`warp ${op}: ${total.total_errors} requests failed`);
  return { total, cpuSamples: t.cpuSamples! };
}

async function warpRound(store: Store, scratch: string, size: Size, into: Samples) {
  const { size: bytes, concurrency } = config.warp[size];
  const common = ["--concurrent", String(concurrency), "--duration", `${config.warp.seconds}s`];
  const run = async (op: Op, args: string[]) => {
    const { total, cpuSamples } = await warpRun(store, scratch, op, [...common, ...args]);
    const window = total.throughput.measure_duration_millis / 1000;
    into[size][op].push({
      throughput: total.throughput.bytes / window,
      opsPerSecond: total.throughput.ops / window,
      cpuPerGiB:
        cpuWithin(cpuSamples, Date.parse(total.start_time), Date.parse(total.end_time)) /
        (total.total_bytes / GiB),
    });
  };
  try {
    await run("put", ["--obj.size", String(bytes), "--disable-multipart", "--disable-sha256-payload"]);
    await run("get", ["--list-existing"]);
  } finally {
    await emptyWarpBucket(store);
  }
}

const emptyWarpBucket = (store: Store) =>
  timed(s5cmdBinary(), ["--endpoint-url", store.endpoint, "rm", `s3://${WARP_BUCKET}/*`], {
    env: store.env,
    discardStdout: true,
  });
