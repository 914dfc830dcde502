/**
 * The rows of a host-telemetry chart: per drawn case (and host) its CPU — busy and iowait, % of all cores —
 * and each interface's received and sent throughput, per time bin.
 */
import type { DisplayUnit } from "../format.js";
import type { TelemetrySeries } from "../telemetry-series.js";
import { round, unitFor, type VlSpec } from "./common.js";
import { maxOf } from "../../rows/stats.js";

/** Interfaces drawn at most per case and host: the busiest (the caption names the others). */
export const MAX_INTERFACES = 4;
const LOOPBACK = "lo";
/** Below this share of the busiest interface's traffic an interface is left out. */
const QUIET = 0.01;

export interface TelemetryData {
  /** Kind "cpu" and kind "net": { t, y, s (the line), d (busy/iowait, rx/tx) }. */
  rows: VlSpec[];
  unit: DisplayUnit;
  /** The highest network rate drawn (bytes/s). */
  max: number;
  tMax: number;
  repetitions: number;
  interfaces: string[];
  /** Interfaces with traffic not drawn: loopback (unless it carries most), the quiet and the quietest. */
  left: string[];
}

/**
 * `series`: each with the label of its case and host ("": the one case of one host). `named`: interfaces
 * a limit names, drawn first (loopback too).
 */
export function telemetryData(
  series: readonly { label: string; series: TelemetrySeries }[],
  named: ReadonlySet<string>,
): TelemetryData | undefined {
  if (series.length === 0) return undefined;
  const traffic = new Map<string, number>();
  for (const { series: s } of series)
    for (const p of s.points)
      for (const [n, v] of Object.entries(p.net)) traffic.set(n, (traffic.get(n) ?? 0) + v.rx + v.tx);
  // Loopback is the data path only when it carries most of the traffic (a server on this machine).
  const total = [...traffic.values()].reduce((sum, v) => sum + v, 0);
  const loopback = named.has(LOOPBACK) || (traffic.get(LOOPBACK) ?? 0) > total / 2;
  // An interface with under 1 % of the busiest one's traffic (a bridge's chatter) would be a flat line.
  const busiest = maxOf([...traffic].map(([n, v]) => (n !== LOOPBACK || loopback ? v : 0)));
  const candidates = [...traffic.keys()]
    .filter((n) => named.has(n) || ((n !== LOOPBACK || loopback) && traffic.get(n)! >= QUIET * busiest))
    .sort((a, b) => Number(named.has(b)) - Number(named.has(a)) || traffic.get(b)! - traffic.get(a)!);
  const interfaces = candidates.slice(0, MAX_INTERFACES).sort();
  const left = [...traffic.keys()].filter((n) => !interfaces.includes(n)).sort();
  const rates = series.flatMap(({ series: s }) =>
    s.points.flatMap((p) => interfaces.flatMap((n) => (p.net[n] ? [p.net[n].rx, p.net[n].tx] : []))),
  );
  const unit = unitFor("throughput", rates);
  const rows: VlSpec[] = [];
  for (const { label, series: s } of series) {
    for (const p of s.points) {
      const t = round(p.t);
      const host = label || "client host";
      rows.push({ k: "cpu", t, y: round(p.busy * 100), s: host, d: "busy" });
      rows.push({ k: "cpu", t, y: round(p.iowait * 100), s: host, d: "iowait" });
      for (const n of interfaces) {
        const rate = p.net[n] ?? { rx: 0, tx: 0 };
        const line = `${label ? `${label} · ` : ""}${n}`;
        rows.push({ k: "net", t, y: round(rate.rx / unit.factor), s: line, d: "rx" });
        rows.push({ k: "net", t, y: round(rate.tx / unit.factor), s: line, d: "tx" });
      }
    }
  }
  return {
    rows,
    unit,
    max: maxOf(rates, 0),
    tMax: maxOf(
      series.flatMap(({ series: s }) => s.points.map((p) => p.t)),
      0,
    ),
    repetitions: maxOf(series.map(({ series: s }) => s.repetitions)),
    interfaces,
    left,
  };
}
