/**
 * `npm run bench`: benchspec's engines side by side with the dedicated tools, in one run (DESIGN.md,
 * "Performance targets"; issue 5 and issue 3). Starts one MinIO and one Kubo on tmpfs, then measures
 *   - S3 PUT/GET, 64 MiB and 4 KiB objects: the engine via `benchspec run` vs s5cmd      (s3.ts)
 *   - IPFS add/cat, 64 MiB and 1 MiB files: the engine via `benchspec run` vs `ipfs`     (ipfs.ts)
 *   - fio and dd through `benchspec run` vs the same jobs run by hand, overhead per case  (fs.ts)
 *   - payload generator GB/s, peak RSS of a 16 × 256 MiB multipart upload               (memory.ts)
 *   - compile of a 10,000-case matrix                                                    (compile.ts)
 *   - the 1,000,000-row report, when bench/report.ts exists                              (hook below)
 * and prints one table (medians of `config.rounds` interleaved rounds) with PASS/BELOW against the targets;
 * the figures, every round's included, go to bench/results/latest.json.
 *
 * Options: --quick (small sizes, one round: checks the harness), --only s3,ipfs,fs,memory,compile,report.
 * BENCH_BENCHSPEC=dist|source picks how `benchspec` is started (default: dist when it is up to date).
 */
import { rm } from "node:fs/promises";
import { availableParallelism, cpus, loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import { join } from "node:path";
import { benchCompile } from "./compile.js";
import { config } from "./config.js";
import { benchFs } from "./fs.js";
import { benchIpfs } from "./ipfs.js";
import { failedLine, type BenchLine } from "./lines.js";
import { benchMemory } from "./memory.js";
import { benchspecCommand, makeScratch, ROOT } from "./paths.js";
import { benchS3 } from "./s3.js";
import { startServers, type Servers } from "./servers.js";
import { renderTable, writeResults } from "./table.js";

/**
 * The hook for the report benchmark: bench/report.ts (written with src/report/) exports
 * `benchReport(scratch, log): Promise<BenchLine[]>` — e.g. build a report over 1,000,000 generated rows and
 * return lines for its build time and size. Until that file exists the section says so.
 */
async function benchReportHook(scratch: string, log: (line: string) => void): Promise<BenchLine[]> {
  const file = join(ROOT, "bench", "report.ts");
  const module = (await import(pathToFileURL(file).href).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ERR_MODULE_NOT_FOUND") return undefined;
    throw error;
  })) as { benchReport?: (scratch: string, log: (line: string) => void) => Promise<BenchLine[]> } | undefined;
  if (!module?.benchReport) {
    return [
      {
        section: "report",
        metric: "report over 1,000,000 rows",
        unit: "s",
        target: "seconds, a few MB",
        verdict: "INFO",
        note: "bench/report.ts (benchReport) not written yet",
      },
    ];
  }
  return module.benchReport(scratch, log);
}

type Section = "s3" | "ipfs" | "fs" | "memory" | "compile" | "report";

const only = (() => {
  const index = process.argv.indexOf("--only");
  return index > 0 ? new Set(process.argv[index + 1]!.split(",") as Section[]) : undefined;
})();

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

async function main() {
  const started = Date.now();
  const load = { start: loadavg() };
  const scratch = await makeScratch("run");
  const command = benchspecCommand();
  log(
    `benchspec from ${command.kind}${command.kind === "source" ? " (dist/ is missing or older than src/: npm run build)" : ""}; scratch ${scratch}`,
  );
  if (load.start[0]! > availableParallelism())
    log(`load average ${load.start[0]!.toFixed(1)} on ${availableParallelism()} CPUs: expect noisy numbers`);
  const needsServers = !only || ["s3", "ipfs", "memory"].some((s) => only.has(s as Section));
  let servers: Servers | undefined;
  const stop = async () => {
    await servers?.stop();
    await rm(scratch, { recursive: true, force: true });
  };
  process.once("SIGINT", () => void stop().finally(() => process.exit(130)));
  const lines: BenchLine[] = [];
  const timings: Record<string, number> = {};
  try {
    if (needsServers) servers = await startServers();
    const sections: [Section, string, () => Promise<BenchLine[]>][] = [
      ["compile", "compile", () => benchCompile(scratch)],
      ["memory", "payload and memory", () => benchMemory(servers!, scratch, log)],
      ["s3", "S3 vs s5cmd", () => benchS3(servers!, scratch, log)],
      ["ipfs", "IPFS vs ipfs CLI", () => benchIpfs(servers!, scratch, log)],
      ["fs", "fio/dd vs direct", () => benchFs(scratch, log)],
      ["report", "report", () => benchReportHook(scratch, log)],
    ];
    for (const [key, name, run] of sections) {
      if (only && !only.has(key)) continue;
      log(`${name}…`);
      const t0 = Date.now();
      try {
        lines.push(...(await run()));
      } catch (error) {
        log(`${name} failed: ${(error as Error).stack ?? error}`);
        lines.push(failedLine(name, name, error));
      }
      timings[key] = (Date.now() - t0) / 1000;
    }
  } finally {
    await stop();
  }
  const seconds = (Date.now() - started) / 1000;
  const table = renderTable(lines);
  process.stdout.write(`\n${table}\n\n`);
  const file = await writeResults({
    date: new Date().toISOString(),
    quick: config.quick,
    rounds: config.rounds,
    benchspec: command.kind,
    host: {
      cpus: cpus().length,
      model: cpus()[0]?.model,
      node: process.version,
      loadavg: { ...load, end: loadavg() },
    },
    config,
    seconds,
    sectionSeconds: timings,
    lines,
  });
  process.stdout.write(
    `${lines.filter((l) => l.verdict === "PASS").length} PASS, ${lines.filter((l) => l.verdict === "BELOW").length} BELOW, ${lines.filter((l) => l.verdict === "FAILED").length} FAILED; ${seconds.toFixed(0)} s; figures in ${file}\n`,
  );
  if (config.quick)
    process.stdout.write("(--quick: sizes scaled down, one round — not the benchmark's numbers)\n");
}

await main();
