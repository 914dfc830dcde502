/**
 * Payload generation speed (makePayload, measured in a fresh child process, bench/payload-rate.ts: streamed
 * bodies as PUTs and adds get them, and slices into a reused buffer as multipart parts and buffered bodies
 * get them) and the peak RSS of the benchspec process during a 16 × 256 MiB multipart upload, against the
 * bound the design promises: concurrency × part size × queue above the process's baseline (the peak of the
 * same spec with one 4 KiB object), never a whole object per upload.
 */
import { execa } from "execa";
import { join } from "node:path";
import { config, MiB } from "./config.js";
import { runBenchspec, rowsOf } from "./benchspec.js";
import type { BenchLine } from "./lines.js";
import { ROOT } from "./paths.js";
import type { Servers } from "./servers.js";
import { MB } from "./stats.js";

const SECTION = "payload and memory";
const PAYLOAD_TARGET = 3e9; // "several GB/s"

export async function benchMemory(
  servers: Servers,
  scratch: string,
  log: (line: string) => void,
): Promise<BenchLine[]> {
  const lines: BenchLine[] = [];
  const child = await execa(process.execPath, [
    "--import",
    "tsx",
    join(ROOT, "bench", "payload-rate.ts"),
    String(config.memory.payloadBytes),
  ]);
  const rates = JSON.parse(child.stdout) as Record<string, number>;
  const rows: [string, string][] = [
    ["streamed", "makePayload, streamed 64 MiB bodies, 8 at once (256 KiB chunks generated)"],
    ["reused", "makePayload, 8 MiB slices into a reused buffer"],
  ];
  for (const [key, metric] of rows) {
    const rate = rates[key]!;
    lines.push({
      section: SECTION,
      metric,
      unit: "GB/s",
      engine: rate / 1e9,
      target: `≥ ${PAYLOAD_TARGET / 1e9} GB/s`,
      verdict: rate >= PAYLOAD_TARGET ? "PASS" : "BELOW",
    });
  }

  const { objects, size, partSize, queue, concurrency } = config.memory.upload;
  const bound = concurrency * partSize * queue;
  const spec = (n: number, bytes: number) => `benchspec: 1
name: bench-memory
targets:
  minio: { kind: s3, endpoint: "\${env:BENCH_S3_ENDPOINT}", bucket: "\${env:BENCH_S3_BUCKET}", region: us-east-1, accessKey: "\${env:AWS_ACCESS_KEY_ID}", secretKey: "\${env:AWS_SECRET_ACCESS_KEY}", pathStyle: true }
workloads:
  - name: upload
    op: put
    size: ${bytes}B
    objects: ${n}
    concurrency: ${concurrency}
    multipart: { partSize: ${partSize}B, queue: ${queue} }
`;
  const baseline = await runBenchspec(
    scratch,
    "memory-baseline",
    spec(1, 4096).replace(/\n {4}multipart:.*\n/, "\n"),
    servers.env,
  );
  const upload = await runBenchspec(scratch, "memory", spec(objects, size), servers.env);
  const row = rowsOf(upload, "upload", "put")[0]!;
  const growth = upload.peakRss - baseline.peakRss;
  log(
    `memory: peak RSS ${(upload.peakRss / MiB).toFixed(0)} MiB (baseline ${(baseline.peakRss / MiB).toFixed(0)} MiB), bound ${(bound / MiB).toFixed(0)} MiB`,
  );
  lines.push(
    {
      section: SECTION,
      metric: `peak RSS, ${objects} × ${size / MiB} MiB multipart (${concurrency} objects × ${queue} parts × ${partSize / MiB} MiB in flight)`,
      unit: "MiB",
      engine: upload.peakRss / MiB,
      target: `≤ baseline + 2 × ${(bound / MiB).toFixed(0)} MiB`,
      verdict: growth <= 2 * bound ? "PASS" : "BELOW",
      note: `baseline (same spec, one 4 KiB object) ${(baseline.peakRss / MiB).toFixed(0)} MiB; growth ${(growth / MiB).toFixed(0)} MiB for a bound of concurrency × queue × part size = ${(bound / MiB).toFixed(0)} MiB (all objects: ${((objects * size) / MiB).toFixed(0)} MiB)`,
      detail: { peakRss: upload.peakRss, baselineRss: baseline.peakRss, bound },
    },
    {
      section: SECTION,
      metric: `multipart upload throughput (same run)`,
      unit: "MB/s",
      engine: row.bytes / row.seconds / MB,
      target: "",
      verdict: "INFO",
      detail: { client: row.client },
    },
  );
  return lines;
}
