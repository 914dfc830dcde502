/**
 * Progress while a run goes: a live bar on a terminal, one plain line per finished case otherwise (and a
 * line every 10 s while a case runs, so a log shows the run is alive), NDJSON events with --json, nothing
 * with --quiet. Colour only on a terminal without NO_COLOR.
 */
import { printable } from "../platform/printable.js";
import cliProgress, { type SingleBar, type TimeFormatter } from "cli-progress";
import type { Case } from "../plan/types.js";
import type { ResultRow } from "../rows/row.js";
import type { CaseSummary } from "../results/summary.js";
import { formatRate } from "../spec/units.js";
import type { RunObserver } from "../execution/observer.js";

type Stream = NodeJS.WritableStream & { isTTY?: boolean };

export type ProgressMode = "tty" | "plain" | "json" | "quiet";

export function makeObserver(
  mode: ProgressMode,
  out: Stream,
  color: boolean,
): RunObserver & { stop(): void } {
  if (mode === "json") return jsonObserver(out);
  if (mode === "quiet")
    return { caseStart() {}, repetitionDone() {}, caseDone() {}, message() {}, stop() {} };
  return mode === "tty" ? ttyObserver(out, color) : plainObserver(out, color, STILL_RUNNING_EVERY_MS);
}

// cli-progress is CommonJS: under Node's ESM loader only its default export is certain.
const { Format, MultiBar } = cliProgress;

/** How often a plain log says which case is still running (a case may run for hours). */
export const STILL_RUNNING_EVERY_MS = 10_000;

/**
 * What the case measured, in one line: the median rate and its CV (bytes per second when it moved bytes;
 * operations per second when it did not, as stat, list and delete do), IOPS, and the latency percentiles
 * when its engine times operations (a latency workload's own figure).
 */
function describeSummary(summary: CaseSummary): string {
  const { throughput, iops, p50, p99 } = summary.metrics;
  const parts = [`${summary.repetitions} rep${summary.repetitions === 1 ? "" : "s"}`];
  const cv = (stats: { cv: number }) => `cv ${(stats.cv * 100).toFixed(1)}%`;
  if (throughput && throughput.median > 0) {
    parts.push(`median ${formatRate(throughput.median)}`, cv(throughput));
    if (iops && iops.median > 0) parts.push(`${Math.round(iops.median)} IOPS`);
  } else if (iops) parts.push(`median ${formatOps(iops.median)} ops/s`, cv(iops));
  if (p50 && p99) parts.push(`p50 ${formatLatency(p50.median)}  p99 ${formatLatency(p99.median)}`);
  return parts.join("  ");
}

const formatOps = (perSecond: number) =>
  perSecond >= 100 ? String(Math.round(perSecond)) : String(Math.round(perSecond * 100) / 100);

/** Seconds as µs, ms or s with three significant digits. */
function formatLatency(seconds: number): string {
  const [value, unit] =
    seconds >= 1 ? [seconds, "s"] : seconds >= 1e-3 ? [seconds * 1e3, "ms"] : [seconds * 1e6, "µs"];
  return `${Number(value.toPrecision(3))}${unit}`;
}

function plainObserver(
  out: Stream,
  color: boolean,
  stillRunningEveryMs?: number,
): RunObserver & { stop(): void } {
  const paint = (code: number, text: string) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);
  let position = "";
  /** Each case's place in the run, as it was started: a workload's rounds end all its cases at once. */
  const positions = new Map<string, string>();
  let lastDone = "";
  let ticker: NodeJS.Timeout | undefined;
  const stopTicker = () => clearInterval(ticker);
  return {
    caseStart(c, index, total) {
      position = `[${index}/${total}]`;
      positions.set(c.id, position);
      lastDone = "no repetition done yet";
      if (stillRunningEveryMs === undefined) return;
      stopTicker();
      const started = Date.now();
      ticker = setInterval(() => {
        const seconds = Math.round((Date.now() - started) / 1000);
        out.write(`${position} ${c.id}  running ${seconds}s  (${lastDone})\n`);
      }, stillRunningEveryMs).unref();
    },
    repetitionDone(_c, row) {
      lastDone = `last done: rep ${row.repetition}${row.warmup ? " warm-up" : ""}`;
    },
    caseDone(c, summary, skipped) {
      stopTicker();
      const status = skipped
        ? paint(2, "done earlier")
        : summary.failed > 0
          ? paint(31, `FAILED (${printable(summary.errors[0] ?? "")})`)
          : paint(32, "ok");
      // Errors and warnings quote servers and hosts: their control characters are shown, not obeyed.
      out.write(`${positions.get(c.id) ?? position} ${c.id}  ${describeSummary(summary)}  ${status}\n`);
      for (const warning of summary.warnings)
        out.write(`      ${paint(33, "warning")}: ${printable(warning)}\n`);
    },
    message(text) {
      out.write(`${printable(text, { lines: true })}\n`);
    },
    stop: stopTicker,
  };
}

/** cli-progress's time format, but "?" for an ETA it cannot estimate yet (it wrote NULL as "LLs"). */
const etaTime: TimeFormatter = (t, options, roundTo) =>
  typeof t === "number" && Number.isFinite(t) ? Format.TimeFormat(t, options, roundTo) : "?";

function ttyObserver(out: Stream, color: boolean): RunObserver & { stop(): void } {
  const bars = new MultiBar({
    stream: out,
    format: " {bar} {value}/{total} cases | {case} | rep {rep} | {rate} | ETA {eta_formatted}",
    hideCursor: true,
    clearOnComplete: true,
    etaBuffer: 20,
    formatTime: etaTime,
  });
  let bar: SingleBar | undefined;
  const lines = plainObserver(
    { write: (text: string) => (bars.log(text), true) } as unknown as Stream,
    color,
  );
  return {
    caseStart(c, index, total) {
      bar ??= bars.create(total, index - 1);
      bar.update(index - 1, { case: c.id, rep: "-", rate: "" });
      lines.caseStart(c, index, total);
    },
    repetitionDone(_c, row) {
      bar?.update({
        rep: `${row.repetition}${row.warmup ? " (warm-up)" : ""}`,
        rate: row.ok ? formatRate(row.throughput) : "failed",
      });
    },
    caseDone(c, summary, skipped) {
      bar?.increment();
      lines.caseDone(c, summary, skipped);
    },
    message: (text) => lines.message(text),
    stop: () => bars.stop(),
  };
}

function jsonObserver(out: Stream): RunObserver & { stop(): void } {
  const emit = (event: object) => out.write(`${JSON.stringify(event)}\n`);
  return {
    caseStart: (c: Case, index: number, total: number) =>
      emit({ event: "case-start", case: c.id, index, total }),
    repetitionDone: (c: Case, row: ResultRow) => emit({ event: "repetition", case: c.id, row }),
    caseDone: (c: Case, summary: CaseSummary, skipped: boolean) =>
      emit({ event: "case-done", case: c.id, skipped, summary }),
    message: (text: string) => emit({ event: "message", text }),
    stop() {},
  };
}
