/**
 * Host telemetry over time for a few cases: their measured samples (warm-ups left out) read from a run's
 * telemetry.ndjson — only those cases' lines are parsed — and, like the throughput series, pooled over the
 * repetitions into time bins on the repetition's clock (at most SERIES_BINS per case and host).
 */
import { readNdjson } from "../results/ndjson.js";
import type { TelemetryRow } from "../rows/telemetry.js";
import { SERIES_BINS } from "../results/model/series.js";
import type { RunData } from "./model.js";
import { maxOf } from "../rows/stats.js";

/** One time bin: the means over the samples in it (an interface a sample lacks was idle: 0). */
export interface TelemetryPoint {
  t: number;
  /** Shares of all cores: user + system, and waiting for I/O. */
  busy: number;
  iowait: number;
  /** Bytes per second per interface. */
  net: Record<string, { rx: number; tx: number }>;
}

export interface TelemetrySeries {
  case: string;
  /** The host sampled, in a case run on several hosts. */
  host?: string;
  repetitions: number;
  points: TelemetryPoint[];
}

/** The telemetry series of `caseIds` in `run` (none when the run has no samples). */
export async function telemetrySeries(
  run: RunData,
  caseIds: ReadonlySet<string>,
): Promise<TelemetrySeries[]> {
  const source = run.telemetry;
  if (!source || caseIds.size === 0) return [];
  const samples = new Map<string, TelemetryRow[]>();
  const add = (row: TelemetryRow) => {
    if (row.warmup || !caseIds.has(row.case) || typeof row.t !== "number" || !row.cpu) return;
    const key = row.host === undefined ? row.case : `${row.case}\u0000${row.host}`;
    const list = samples.get(key);
    if (list) list.push(row);
    else samples.set(key, [row]);
  };
  if ("rows" in source) source.rows.forEach(add);
  else {
    // A line names its case as JSON.stringify writes it: lines of other cases are not parsed at all.
    const needles = [...caseIds].map((id) => `"case":${JSON.stringify(id)}`);
    const parse = (text: string) => (needles.some((n) => text.includes(n)) ? JSON.parse(text) : undefined);
    await readNdjson(source.file, (row) => row && add(row as TelemetryRow), parse);
  }
  return [...samples.values()].map(binned);
}

function binned(rows: TelemetryRow[]): TelemetrySeries {
  const first = rows[0]!;
  const tMax = maxOf(rows.map((r) => r.t));
  // Bins one sampling interval wide, centred on the sample instants (the repetitions' samples meet in
  // one); equal-width bins when that would make more than SERIES_BINS.
  const interval = rows.map((r) => r.seconds).sort((a, b) => a - b)[rows.length >> 1]!;
  const exact = interval > 0 && tMax / interval + 1 <= SERIES_BINS;
  const binOf = exact
    ? (t: number) => Math.round(t / interval)
    : (t: number) => Math.min(SERIES_BINS - 1, Math.floor((t / (tMax || 1)) * SERIES_BINS));
  const bins = new Map<number, TelemetryRow[]>();
  for (const row of rows) {
    const bin = bins.get(binOf(row.t));
    if (bin) bin.push(row);
    else bins.set(binOf(row.t), [row]);
  }
  const points = [...bins.keys()]
    .sort((a, b) => a - b)
    .map((bin): TelemetryPoint => {
      const inBin = bins.get(bin)!;
      const mean = (of: (r: TelemetryRow) => number) => inBin.reduce((s, r) => s + of(r), 0) / inBin.length;
      const interfaces = new Set(inBin.flatMap((r) => Object.keys(r.net)));
      return {
        t: mean((r) => r.t),
        busy: mean((r) => r.cpu.user + r.cpu.system),
        iowait: mean((r) => r.cpu.iowait),
        net: Object.fromEntries(
          [...interfaces]
            .sort()
            .map((n) => [n, { rx: mean((r) => r.net[n]?.rx ?? 0), tx: mean((r) => r.net[n]?.tx ?? 0) }]),
        ),
      };
    });
  return {
    case: first.case,
    ...(first.host !== undefined && { host: first.host }),
    repetitions: new Set(rows.map((r) => r.repetition)).size,
    points,
  };
}
