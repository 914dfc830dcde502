/**
 * `npm run bench`: benchspec's engines side by side with the dedicated tools, in one run (the targets are
 * in the README's performance section). Starts one MinIO and one Kubo on tmpfs, then measures
 *   - S3 PUT/GET, 64 MiB and 4 KiB objects: the engine via `benchspec run` vs s5cmd      (s3.ts)
 *   - S3 PUT/GET, 64 MiB and 4 KiB objects for a fixed time: the engine vs warp          (warp.ts)
 *   - IPFS add/cat, 64 MiB and 1 MiB files: the engine via `benchspec run` vs `ipfs`     (ipfs.ts)
 *   - fio and dd through `benchspec run` vs the same jobs run by hand, overhead per case  (fs.ts)
 *   - the compiled script vs `benchspec run`: an S3 mixed load and fio in rounds         (script.ts)
 *   - payload generator GB/s, peak RSS of a 16 × 256 MiB multipart upload               (memory.ts)
 *   - compile of a 10,000-case matrix                                                    (compile.ts)
 *   - the 1,000,000-row report, when bench/report.ts exists                              (hook below)
 *   - compare of two 1,000,000-row runs                                                  (compare.ts)
 *   - cases from 1 and 3 namespaced client hosts: overhead per case, aggregate throughput (hosts.ts, root)
 *   - cases from 3 pods of a Kubernetes cluster on this machine: overhead per case (kube.ts, root)
 *   - the host telemetry sampler's CPU per reading                                       (telemetry.ts)
 *   - the live metrics endpoint's CPU per row and per scrape                              (metrics.ts)
 * and prints one table (medians of `config.rounds` interleaved rounds) with PASS/BELOW/ABOVE against the
 * targets; the figures, every round's included, go to bench/results/latest.json.
 *
 * Options: --quick (small sizes, one round: checks the harness), --only cli,s3,warp,ipfs,fs,script,memory,compile,report,compare,hosts,kube,telemetry,metrics.
 * BENCH_BASELINE=<another checkout, built> makes the cli section a side-by-side comparison with that build.
 * BENCH_BENCHSPEC=dist|source picks how `benchspec` is started (default: dist when it is up to date).
 */
import { benchCliTiming } from "./cli-timing.js";
import { execa } from "execa";
import { readFile } from "node:fs/promises";
import { availableParallelism, cpus, loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import { join } from "node:path";
import { benchCompare } from "./compare.js";
import { benchCompile } from "./compile.js";
import { config } from "./config.js";
import { benchFs } from "./fs.js";
import { benchHosts } from "./hosts.js";
import { benchKube } from "./kube.js";
import { benchIpfs } from "./ipfs.js";
import { failedLine, type BenchLine } from "./lines.js";
import { benchMemory } from "./memory.js";
import { benchspecCommand, makeScratch, removeBenchRoot, ROOT } from "./paths.js";
import { benchS3 } from "./s3.js";
import { benchScript } from "./script.js";
import { benchWarp } from "./warp.js";
import { benchTelemetry } from "./telemetry.js";
import { benchMetrics } from "./metrics.js";
import { startServers, type Servers } from "./servers.js";
import { renderTable, writeResults } from "./table.js";

/**
 * The report benchmark (target: a report over 1,000,000 result rows builds in seconds and stays a few
 * MB) lives in bench/report.ts, written with src/report/. If it exports `benchReport(scratch, log):
 * Promise<BenchLine[]>` that is called; otherwise the script is run as it is (`tsx bench/report.ts`), its
 * output shown, and its "total … s" and "report size … MB" lines turned into table lines.
 */
async function benchReportHook(scratch: string, log: (line: string) => void): Promise<BenchLine[]> {
  const file = join(ROOT, "bench", "report.ts");
  const text = await readFile(file, "utf8").catch(() => undefined);
  if (text === undefined) {
    return [
      {
        section: "report",
        metric: "report over 1,000,000 rows",
        unit: "s",
        target: "seconds",
        verdict: "INFO",
        note: "bench/report.ts not written yet",
      },
    ];
  }
  if (/export (async )?function benchReport\b/.test(text)) {
    const module = (await import(pathToFileURL(file).href)) as {
      benchReport: (scratch: string, log: (line: string) => void) => Promise<BenchLine[]>;
    };
    return module.benchReport(scratch, log);
  }
  const child = await execa(process.execPath, ["--import", "tsx", file], {
    cwd: ROOT,
    reject: false,
    all: true,
  });
  for (const line of String(child.all).split("\n")) log(`report: ${line}`);
  if (child.exitCode !== 0) throw new Error(`bench/report.ts exited with ${child.exitCode}`);
  const lines: BenchLine[] = [];
  let shape = "";
  for (const line of String(child.stdout).split("\n")) {
    const heading = /^([A-Z])\. ([^:]+):/.exec(line);
    if (heading) shape = `${heading[1]}. ${heading[2]}`;
    const total = /^\s+total\s+([\d.]+) s/.exec(line);
    const size = /^\s+report size\s+([\d.]+) MB/.exec(line);
    if (total) {
      const seconds = Number(total[1]);
      lines.push({
        section: "report (bench/report.ts)",
        metric: `${shape}, 1,000,000 rows: build`,
        unit: "s",
        engine: seconds,
        target: '≤ 10 s ("in seconds")',
        verdict: seconds <= 10 ? "PASS" : "BELOW",
      });
    }
    if (size) {
      const mb = Number(size[1]);
      lines.push({
        section: "report (bench/report.ts)",
        metric: `${shape}: report size`,
        unit: "MB",
        engine: mb,
        target: '≤ 10 MB ("a few MB")',
        verdict: mb <= 10 ? "PASS" : "BELOW",
      });
    }
  }
  if (lines.length === 0) throw new Error('bench/report.ts printed no "total … s" lines');
  return lines;
}

type Section =
  | "cli"
  | "s3"
  | "warp"
  | "ipfs"
  | "fs"
  | "script"
  | "memory"
  | "compile"
  | "report"
  | "compare"
  | "hosts"
  | "kube"
  | "telemetry"
  | "metrics";

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
  const needsServers =
    !only || ["s3", "warp", "ipfs", "script", "memory"].some((s) => only.has(s as Section));
  let servers: Servers | undefined;
  const stop = async () => {
    await servers?.stop();
    removeBenchRoot();
  };
  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const)
    process.once(signal, () => void stop().finally(() => process.exit(code)));
  const lines: BenchLine[] = [];
  const timings: Record<string, number> = {};
  try {
    if (needsServers) servers = await startServers();
    const sections: [Section, string, () => Promise<BenchLine[]>][] = [
      ["cli", "command line", () => benchCliTiming(scratch, log)],
      ["compile", "compile", () => benchCompile(scratch)],
      ["memory", "payload and memory", () => benchMemory(servers!, scratch, log)],
      ["s3", "S3 vs s5cmd", () => benchS3(servers!, scratch, log)],
      ["warp", "S3 vs warp", () => benchWarp(servers!, scratch, log)],
      ["ipfs", "IPFS vs ipfs CLI", () => benchIpfs(servers!, scratch, log)],
      ["fs", "fio/dd vs direct", () => benchFs(scratch, log)],
      ["script", "compiled script vs run", () => benchScript(servers!, scratch, log)],
      ["report", "report", () => benchReportHook(scratch, log)],
      ["compare", "compare", () => benchCompare(scratch, log)],
      ["hosts", "multi-host", () => benchHosts(scratch, log)],
      ["kube", "kubernetes", () => benchKube(scratch, log)],
      ["telemetry", "host telemetry", () => benchTelemetry(log)],
      ["metrics", "live metrics", async () => benchMetrics(log)],
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
    `${(["PASS", "BELOW", "ABOVE", "FAILED"] as const).map((v) => `${lines.filter((l) => l.verdict === v).length} ${v}`).join(", ")}; ${seconds.toFixed(0)} s; figures in ${file}\n`,
  );
  if (config.quick)
    process.stdout.write("(--quick: sizes scaled down, one round — not the benchmark's numbers)\n");
}

await main();
