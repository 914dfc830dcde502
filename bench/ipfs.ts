/**
 * IPFS: benchspec's engine (through `benchspec run`) vs the `ipfs` CLI against the same Kubo daemon
 * (`ipfs --api …`), rounds interleaved. Same options on both sides (CID v1, raw leaves, the default
 * 256 KiB chunker, pinned). The CLI gets its best case: one process and one request per op for all files
 * of a size (`ipfs add -q f1 f2 …`, `ipfs cat cid1 cid2 … >/dev/null`), its files on tmpfs and new random
 * bytes every round (so nothing is deduplicated), unpinned and collected after.
 *
 * Request shape: the CLI streams every file through one request, so Kubo never idles between files. The
 * engine sends one request per file (each op timed on its own); one at a time, Kubo drains its pipeline
 * and answers before the next file starts. The compared figure is the engine with two requests in flight,
 * which keeps Kubo as busy as the CLI's single stream; the one-at-a-time figure is shown beside it.
 *
 * The compiled script (`benchspec compile --target shell`, run on its own) does the same workloads on the
 * same Kubo each round; its rows' bytes/seconds are set beside `benchspec run`'s, concurrency for
 * concurrency: the script must give numbers a user can trust, within 20% either way.
 */
import { randomFillSync } from "node:crypto";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { execa } from "execa";
import { config, GiB, MiB } from "./config.js";
import { runBenchspec, runCompiledScript, rowsOf } from "./benchspec.js";
import { ratioLine, type BenchLine } from "./lines.js";
import { ipfsBinary } from "./paths.js";
import { timed } from "./proc.js";
import type { Servers } from "./servers.js";
import { MB, medianOf } from "./stats.js";

type Size = "large" | "small";
type Op = "put" | "get";
interface Sample {
  throughput: number;
  cpuPerGiB: number;
  elu?: number;
}
type Samples = Record<Size, Record<Op, Sample[]>>;
/** Requests in flight on the engine's side: the compared figure, and one at a time (shown for information). */
const COMPARED = 2;
const SERIAL = 1;
const emptySamples = (): Samples => ({ large: { put: [], get: [] }, small: { put: [], get: [] } });

const SECTION = "IPFS vs ipfs CLI";
const SCRIPT_SECTION = "IPFS: compiled script vs benchspec run";
const OPTIONS = { cidVersion: 1, rawLeaves: true, chunker: "size-262144", pin: true };

export async function benchIpfs(
  servers: Servers,
  scratch: string,
  log: (line: string) => void,
): Promise<BenchLine[]> {
  const engine = emptySamples();
  const serial = emptySamples();
  const reference = emptySamples();
  const script = { [COMPARED]: emptySamples(), [SERIAL]: emptySamples() };
  for (let round = 1; round <= config.rounds; round++) {
    const sides = [
      () => engineRound(servers, scratch, { [COMPARED]: engine, [SERIAL]: serial }),
      () => cliRound(servers, scratch, round, reference),
      () => engineRound(servers, scratch, script, true),
    ];
    if (round % 2 === 0) sides.reverse();
    for (const side of sides) await side();
    const last = (s: Samples, op: Op) => `${((s.large[op].at(-1)?.throughput ?? NaN) / MB).toFixed(0)} MB/s`;
    log(
      `ipfs round ${round}: engine add ${last(engine, "put")} cat ${last(engine, "get")}, CLI add ${last(reference, "put")} cat ${last(reference, "get")}, script add ${last(script[COMPARED], "put")} cat ${last(script[COMPARED], "get")}`,
    );
  }
  const lines: BenchLine[] = [];
  for (const size of ["large", "small"] as const) {
    const { size: bytes, objects } = config.ipfs[size];
    for (const op of ["put", "get"] as const) {
      const [e, r] = [engine[size][op], reference[size][op]];
      const metric = `${op === "put" ? "add" : "cat"} ${bytes / MiB} MiB ×${objects}`;
      lines.push({
        section: SECTION,
        metric: `${metric}, one request at a time`,
        unit: "MB/s",
        engine: medianOf(serial[size][op], (s) => s.throughput / MB),
        reference: medianOf(r, (s) => s.throughput / MB),
        target: "(information)",
        verdict: "INFO",
        detail: { engine: serial[size][op] },
      });
      lines.push(
        ratioLine(
          {
            section: SECTION,
            metric: `${metric}, ${COMPARED} requests in flight`,
            unit: "MB/s",
            engine: medianOf(e, (s) => s.throughput / MB),
            reference: medianOf(r, (s) => s.throughput / MB),
            detail: { engine: e, cli: r },
          },
          { atLeast: 1.0 },
        ),
      );
    }
  }
  for (const size of ["large", "small"] as const) {
    const { size: bytes, objects } = config.ipfs[size];
    for (const op of ["put", "get"] as const) {
      for (const [conc, run] of [
        [SERIAL, serial],
        [COMPARED, engine],
      ] as const) {
        const s = script[conc][size][op];
        lines.push(
          ratioLine(
            {
              section: SCRIPT_SECTION,
              metric: `${op === "put" ? "add" : "cat"} ${bytes / MiB} MiB ×${objects}, c=${conc}: benchspec.sh (engine column) vs run (reference)`,
              unit: "MB/s",
              engine: medianOf(s, (x) => x.throughput / MB),
              reference: medianOf(run[size][op], (x) => x.throughput / MB),
              detail: { script: s, run: run[size][op] },
            },
            // Too fast is as wrong as too slow: the script times the same requests on the same store.
            { within: [0.8, 1.2] },
          ),
        );
      }
    }
  }
  for (const op of ["put", "get"] as const) {
    const cpu: BenchLine = {
      section: SECTION,
      metric: `client CPU ${op === "put" ? "add" : "cat"} ${config.ipfs.large.size / MiB} MiB`,
      unit: "CPU-s/GiB",
      engine: medianOf(engine.large[op], (s) => s.cpuPerGiB),
      reference: medianOf(reference.large[op], (s) => s.cpuPerGiB),
      target: "(no target)",
      verdict: "INFO",
    };
    cpu.ratio = cpu.engine! / cpu.reference!;
    lines.push(cpu);
  }
  return lines;
}

function ipfsSpec(): string {
  const workload = (name: string, w: { size: number; objects: number }) =>
    `  - name: ${name}\n    op: [put, get]\n    size: ${w.size}B\n    objects: ${w.objects}\n    concurrency: [${SERIAL}, ${COMPARED}]\n`;
  return `benchspec: 1
name: bench-ipfs
targets:
  kubo: { kind: ipfs, api: "\${env:BENCH_IPFS_API}" }
defaults:
  cidVersion: ${OPTIONS.cidVersion}
  rawLeaves: ${OPTIONS.rawLeaves}
  chunker: ${OPTIONS.chunker}
  pin: ${OPTIONS.pin}
workloads:
${workload("large", config.ipfs.large)}${workload("small", config.ipfs.small)}`;
}

/** `benchspec run`, or (compiled) the compiled script on the same spec, its rows read the same way. */
async function engineRound(
  servers: Servers,
  scratch: string,
  into: Record<number, Samples>,
  compiled = false,
) {
  const run = compiled
    ? await runCompiledScript(scratch, "ipfs", ipfsSpec(), servers.env, dirname(ipfsBinary()))
    : await runBenchspec(scratch, "ipfs", ipfsSpec(), servers.env);
  for (const size of ["large", "small"] as const) {
    for (const op of ["put", "get"] as const) {
      for (const row of rowsOf(run, size, op)) {
        into[row.params.concurrency as number]![size][op].push({
          throughput: row.bytes / row.seconds,
          cpuPerGiB: row.client?.cpuPerGiB ?? NaN,
          elu: row.client?.eventLoopUtilization,
        });
      }
    }
  }
}

async function cliRound(servers: Servers, scratch: string, round: number, into: Samples) {
  const ipfs = ipfsBinary();
  // IPFS_PATH points nowhere: with --api the CLI needs no repo, and must not touch ~/.ipfs.
  const env = { IPFS_PATH: join(scratch, "no-ipfs-repo") };
  const api = ["--api", servers.kubo.apiMultiaddr];
  const dir = join(scratch, `ipfs-cli-r${round}`);
  await mkdir(dir, { recursive: true });
  const added: string[] = [];
  try {
    for (const size of ["large", "small"] as const) {
      const { size: bytes, objects } = config.ipfs[size];
      const files = Array.from({ length: objects }, (_, i) => join(dir, `${size}-${i}`));
      for (const file of files) await writeFile(file, randomFillSync(Buffer.allocUnsafe(bytes)));
      const total = bytes * objects;
      const flags = [
        `--cid-version=${OPTIONS.cidVersion}`,
        `--raw-leaves=${OPTIONS.rawLeaves}`,
        `--chunker=${OPTIONS.chunker}`,
        `--pin=${OPTIONS.pin}`,
      ];
      const add = await timed(ipfs, [...api, "add", "-q", ...flags, ...files], { env });
      const cids = add.stdout.trim().split("\n");
      if (cids.length !== objects)
        throw new Error(`ipfs add printed ${cids.length} CIDs for ${objects} files`);
      added.push(...cids);
      into[size].put.push({ throughput: total / add.wall, cpuPerGiB: add.cpu / (total / GiB) });
      const cat = await timed(ipfs, [...api, "cat", ...cids], { env, discardStdout: true });
      into[size].get.push({ throughput: total / cat.wall, cpuPerGiB: cat.cpu / (total / GiB) });
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
    if (added.length) await execa(ipfs, [...api, "pin", "rm", ...added], { env, reject: false });
    await execa(ipfs, [...api, "repo", "gc", "--quiet"], { env, reject: false });
  }
}
