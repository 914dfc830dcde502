import { Command } from "commander";
import { METRIC_INFO } from "../rows/metrics.js";
import type { RunSummary } from "../results/summary.js";
import { formatMetric } from "../report/format.js";
import { makeObserver, type ProgressMode } from "../run/progress.js";
import { bothObservers, startMetricsEndpoint } from "../run/metrics-server.js";
import { BenchspecError } from "../platform/errors.js";
import { parseUnit } from "../spec/units.js";
import { varsOf } from "../spec/vars.js";
import {
  collect,
  collectNames,
  ONLY_OPTION,
  EXIT,
  nonEmptyPath,
  printDiagnostics,
  useColor,
  VERSION,
  type Io,
} from "./context.js";

interface RunOptions {
  set: string[];
  hosts: string[];
  only: string[];
  out?: string;
  resume?: string;
  quiet?: boolean;
  json?: boolean;
  metrics?: string;
  metricsLinger: string;
}

const INTERRUPTS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

export function makeRunCommand(io: Io, setExit: (code: number) => void): Command {
  return new Command("run")
    .description("run a spec against real storage and keep every sample")
    .argument("[spec]", "spec file (not needed with --resume)")
    .option("--set <key=value>", "override a var or parameter (repeatable)", collect, [])
    .option(
      "--hosts <[group=]host,…>",
      "run workloads from these ssh hosts at once (repeatable)",
      collect,
      [],
    )
    .option(...ONLY_OPTION, collectNames, [])
    .option("-o, --out <dir>", "run directory (default: runs/<date>-<name>)")
    .option("--resume <dir>", "complete a run: its missing and its failed repetitions")
    .option("-q, --quiet", "print only the run directory and failures")
    .option("--json", "print progress as NDJSON events")
    .option(
      "--metrics <addr>",
      "serve live metrics for Prometheus at http://ADDR/metrics while the run lasts (a port is on loopback)",
    )
    .option("--metrics-linger <duration>", "keep serving the metrics this long after the run ends", "0s")
    .addHelpText(
      "after",
      `
Examples:
  $ benchspec run specs/quickstart.yaml
  $ benchspec run specs/shared-storage-dd.yaml --set count=4 --set 'parallel=[2, 4]'
  $ benchspec run specs/shared-storage-dd.yaml --hosts ws1,ws2,ws3
  $ benchspec run specs/cloud-disk-pts.yaml --only iops,throughput
  $ benchspec run --resume runs/2026-11-22T07-58-01-quickstart

Ctrl-C (or SIGTERM, or a closed terminal's SIGHUP) stops the running tool, keeps every row measured so far
and exits 130; a second one exits at once.
Exit codes: 0 all cases passed, 1 a case failed or an expectation was not met, 2 invalid spec, 130 interrupted.`,
    )
    .action(async (spec: string | undefined, options: RunOptions) => {
      const mode: ProgressMode = options.json
        ? "json"
        : options.quiet
          ? "quiet"
          : io.stderr.isTTY
            ? "tty"
            : "plain";
      const progress = makeObserver(mode, mode === "json" ? io.stdout : io.stderr, useColor(io, io.stderr));
      const linger = parseUnit("duration", options.metricsLinger);
      if (!linger.ok)
        throw new BenchspecError("usage", `--metrics-linger ${options.metricsLinger}: ${linger.message}`);
      const metrics = options.metrics !== undefined ? await startMetricsEndpoint(options.metrics) : undefined;
      if (metrics) io.stderr.write(`metrics: ${metrics.url}\n`);
      const observer = {
        ...(metrics ? bothObservers(progress, metrics.observer) : progress),
        stop: progress.stop,
      };
      const { run, abandonRunSync } = await import("../run/run.js");
      const controller = new AbortController();
      if (options.out !== undefined) nonEmptyPath("--out", options.out);
      if (options.resume !== undefined) nonEmptyPath("--resume", options.resume);
      let interrupts = 0;
      const onSignal = () => {
        if (++interrupts > 1) {
          // Now, without the awaited cleanup: run.json says partial and the owned target directories go,
          // from an exit hook that runs after process.ts has SIGKILLed the tools' process groups.
          process.once("exit", abandonRunSync);
          process.exit(EXIT.interrupted);
        }
        observer.message(
          "interrupting: stopping the running tool and keeping the results so far (Ctrl-C again to exit now)",
        );
        controller.abort();
      };
      // A closed terminal (SIGHUP) interrupts the run as Ctrl-C does: its cleanup runs, its rows stay.
      for (const signal of INTERRUPTS) process.on(signal, onSignal);
      try {
        const result = await run({
          specFile: spec,
          sets: options.set,
          hosts: options.hosts,
          only: options.only,
          out: options.out,
          resume: options.resume,
          cwd: process.cwd(),
          env: io.env,
          signal: controller.signal,
          observer,
          version: VERSION,
        });
        observer.stop();
        printDiagnostics(io, result.diagnostics);
        if (result.kind === "invalid") return setExit(EXIT.invalid);
        const verdict = describeVerdict(result.summary);
        if (mode !== "json") io.stderr.write(verdict.lines.join("\n") + (verdict.lines.length ? "\n" : ""));
        io.stdout.write(
          mode === "json"
            ? `${JSON.stringify({ event: "done", dir: result.dir, interrupted: result.interrupted })}\n`
            : `${result.dir}\n`,
        );
        if (result.interrupted) {
          io.stderr.write(`interrupted: resume with  benchspec run --resume ${result.dir}\n`);
          return setExit(EXIT.interrupted);
        }
        setExit(verdict.ok && result.reportWritten ? EXIT.ok : EXIT.failure);
      } catch (error) {
        observer.stop();
        throw error;
      } finally {
        for (const signal of INTERRUPTS) process.off(signal, onSignal);
        await metrics?.close(controller.signal.aborted ? 0 : linger.value);
      }
    });
}

/** The console's verdict: failed cases, unmet expectations (numbers as the report shows them), the count. */
export function describeVerdict(summary: RunSummary): { ok: boolean; lines: string[] } {
  const lines: string[] = [];
  for (const id of summary.failedCases) {
    const c = summary.cases.find((x) => x.id === id)!;
    lines.push(`failed: ${id}: ${c.failed} of ${c.repetitions} repetitions (${c.errors.join("; ")})`);
  }
  // Unmet expectations, and every one whose bound its target's vars made its own (each disk's number).
  for (const e of summary.expect.filter((x) => x.status === "not met" || (x.target && x.status === "met"))) {
    const { family } = METRIC_INFO[e.metric];
    // A formula over vars is said with its value; a plain "1000GB/s" says nothing more.
    const formula = (text: string | undefined) =>
      text && varsOf(text).length > 0 ? ` = ${text}${e.target ? ` with ${e.target}'s vars` : ""}` : "";
    const bound = [
      e.atLeast !== undefined && `≥ ${formatMetric(family, e.atLeast)}${formula(e.atLeastText)}`,
      e.atMost !== undefined && `≤ ${formatMetric(family, e.atMost)}${formula(e.atMostText)}`,
    ]
      .filter(Boolean)
      .join(" and ");
    const measured = e.measured !== undefined ? formatMetric(family, e.measured) : e.reason;
    lines.push(
      `expectation ${e.status}: expect[${e.index}] ${e.case} ${e.metric} ${measured} (expected ${bound})`,
    );
  }
  const passed = summary.expect.filter((e) => e.pass).length;
  const notRun = summary.unrunExpectations;
  if (summary.expect.length > 0)
    lines.push(
      `expectations: ${passed} of ${summary.expect.length} met${notRun > 0 ? `, ${notRun} not run` : ""}`,
    );
  return {
    // An expectation that was not run was not checked either.
    ok: summary.failedCases.length === 0 && summary.failedExpectations === 0 && notRun === 0,
    lines,
  };
}
