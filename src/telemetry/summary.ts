/**
 * Telemetry in a few figures: the mean and peak of each resource over a repetition, and over a case's
 * repetitions. Means are over time (each sample or repetition weighted by its seconds), so a mean rate is
 * what moved divided by how long.
 */
import type { Level, TelemetrySample, TelemetrySummary } from "../rows/telemetry.js";
import { maxOf } from "../rows/stats.js";

/**
 * The samples' figures; with a window (Unix ms), only over it: each sample weighted by the part of its
 * interval inside the window, so the set-up before a measured interval and the tear-down after it (a
 * tool starting, files laid out) do not dilute what the host did while the storage was measured.
 */
export function summarizeTelemetry(
  samples: readonly TelemetrySample[],
  window?: { start: number; end: number },
): TelemetrySummary | undefined {
  const weighted = samples.flatMap((sample) => {
    if (!window) return [sample];
    const from = Math.max(sample.t - sample.seconds * 1000, window.start);
    const to = Math.min(sample.t, window.end);
    return to > from ? [{ ...sample, seconds: (to - from) / 1000 }] : [];
  });
  return combineSummaries(weighted.map(sampleSummary));
}

/** One sample as a summary of itself: each level's mean and peak are its value. */
function sampleSummary(s: TelemetrySample): TelemetrySummary {
  const at = (value: number): Level => ({ mean: value, peak: value });
  const each = <T, U>(record: Record<string, T>, f: (value: T) => U) =>
    Object.fromEntries(Object.entries(record).map(([key, value]) => [key, f(value)]));
  return {
    seconds: s.seconds,
    cpu: { busy: at(s.cpu.user + s.cpu.system), iowait: at(s.cpu.iowait) },
    net: each(s.net, (n) => ({ rx: at(n.rx), tx: at(n.tx) })),
    disk: each(s.disk, (d) => ({
      util: at(d.util),
      throughput: at(d.read + d.write),
      iops: at(d.readOps + d.writeOps),
    })),
    procs: each(s.procs, (p) => ({ cpu: at(p.cpu), busiestThread: at(p.busiestThread), rss: at(p.rss) })),
  };
}

/**
 * Summaries together (a case's repetitions, a repetition's samples): means weighted by each one's seconds,
 * the highest peak; a resource one of them lacks was idle (0) in it.
 */
export function combineSummaries(summaries: readonly TelemetrySummary[]): TelemetrySummary | undefined {
  const seconds = summaries.reduce((total, s) => total + s.seconds, 0);
  if (summaries.length === 0 || seconds <= 0) return undefined;
  const level = (pick: (s: TelemetrySummary) => Level | undefined): Level => ({
    mean: summaries.reduce((total, s) => total + (pick(s)?.mean ?? 0) * s.seconds, 0) / seconds,
    peak: maxOf(summaries.map((s) => pick(s)?.peak ?? 0)),
  });
  const keys = (pick: (s: TelemetrySummary) => Record<string, unknown>) =>
    [...new Set(summaries.flatMap((s) => Object.keys(pick(s))))].sort();
  return {
    seconds,
    cpu: { busy: level((s) => s.cpu.busy), iowait: level((s) => s.cpu.iowait) },
    net: Object.fromEntries(
      keys((s) => s.net).map((n) => [n, { rx: level((s) => s.net[n]?.rx), tx: level((s) => s.net[n]?.tx) }]),
    ),
    disk: Object.fromEntries(
      keys((s) => s.disk).map((n) => [
        n,
        {
          util: level((s) => s.disk[n]?.util),
          throughput: level((s) => s.disk[n]?.throughput),
          iops: level((s) => s.disk[n]?.iops),
        },
      ]),
    ),
    procs: Object.fromEntries(
      keys((s) => s.procs).map((n) => [
        n,
        {
          cpu: level((s) => s.procs[n]?.cpu),
          busiestThread: level((s) => s.procs[n]?.busiestThread),
          rss: level((s) => s.procs[n]?.rss),
        },
      ]),
    ),
  };
}
