/**
 * A repetition's telemetry in a few figures (the mean and peak of each resource) and the verdict they
 * support: which resource of the client host was saturated while the storage was measured, if any. Means
 * are over time (each sample weighted by its interval), so a mean rate is what moved divided by how long.
 */
import type { TelemetrySample } from "./types.js";

/** A resource busy for at least this share of the repetition (or of its declared limit) was the limit. */
export const SATURATED = 0.9;

export interface Level {
  mean: number;
  peak: number;
}

export interface TelemetrySummary {
  seconds: number;
  /** Shares of all cores: busy (user + system) and waiting for I/O. */
  cpu: { busy: Level; iowait: Level };
  net: Record<string, { rx: Level; tx: Level }>;
  disk: Record<string, { util: Level; throughput: Level; iops: Level }>;
  procs: Record<string, { cpu: Level; busiestThread: Level; rss: Level }>;
}

export function summarizeTelemetry(samples: readonly TelemetrySample[]): TelemetrySummary | undefined {
  const seconds = samples.reduce((total, s) => total + s.seconds, 0);
  if (samples.length === 0 || seconds <= 0) return undefined;
  const level = (value: (s: TelemetrySample) => number): Level => ({
    mean: samples.reduce((total, s) => total + value(s) * s.seconds, 0) / seconds,
    peak: Math.max(...samples.map(value)),
  });
  const keys = (pick: (s: TelemetrySample) => Record<string, unknown>) =>
    [...new Set(samples.flatMap((s) => Object.keys(pick(s))))].sort();
  return {
    seconds,
    cpu: { busy: level((s) => s.cpu.user + s.cpu.system), iowait: level((s) => s.cpu.iowait) },
    net: Object.fromEntries(
      keys((s) => s.net).map((name) => [
        name,
        { rx: level((s) => s.net[name]?.rx ?? 0), tx: level((s) => s.net[name]?.tx ?? 0) },
      ]),
    ),
    disk: Object.fromEntries(
      keys((s) => s.disk).map((name) => {
        const d = (s: TelemetrySample) => s.disk[name];
        return [
          name,
          {
            util: level((s) => d(s)?.util ?? 0),
            throughput: level((s) => (d(s)?.read ?? 0) + (d(s)?.write ?? 0)),
            iops: level((s) => (d(s)?.readOps ?? 0) + (d(s)?.writeOps ?? 0)),
          },
        ];
      }),
    ),
    procs: Object.fromEntries(
      keys((s) => s.procs).map((name) => {
        const p = (s: TelemetrySample) => s.procs[name];
        return [
          name,
          {
            cpu: level((s) => p(s)?.cpu ?? 0),
            busiestThread: level((s) => p(s)?.busiestThread ?? 0),
            rss: level((s) => p(s)?.rss ?? 0),
          },
        ];
      }),
    ),
  };
}

/** A resource found saturated, with the figure that shows it. */
export type Saturation =
  | { resource: "cpu"; busy: number }
  | { resource: "thread"; process: string; busy: number }
  | { resource: "nic"; interface: string; direction: "rx" | "tx"; rate: number; limit: number; label: string }
  | { resource: "device"; device: string; util: number };

/** A network interface's declared capacity (a `report.limits` entry naming the interface). */
export interface NicLimit {
  interface: string;
  /** Bytes per second, each way. */
  throughput: number;
  label: string;
}

/**
 * Every saturated resource, most telling first: a NIC at its declared limit, a device busy all the time,
 * all cores busy, one thread of a driven process busy all the time (an event loop, a single-threaded
 * tool). An empty list: the client host had room on every resource measured.
 */
export function saturation(summary: TelemetrySummary, nics: readonly NicLimit[] = []): Saturation[] {
  const found: Saturation[] = [];
  for (const nic of nics) {
    const measured = summary.net[nic.interface];
    if (!measured) continue;
    for (const direction of ["rx", "tx"] as const) {
      const rate = measured[direction].mean;
      if (rate >= SATURATED * nic.throughput)
        found.push({
          resource: "nic",
          interface: nic.interface,
          direction,
          rate,
          limit: nic.throughput,
          label: nic.label,
        });
    }
  }
  for (const [device, d] of Object.entries(summary.disk))
    if (d.util.mean >= SATURATED) found.push({ resource: "device", device, util: d.util.mean });
  if (summary.cpu.busy.mean >= SATURATED) found.push({ resource: "cpu", busy: summary.cpu.busy.mean });
  for (const [process, p] of Object.entries(summary.procs))
    if (p.busiestThread.mean >= SATURATED)
      found.push({ resource: "thread", process, busy: p.busiestThread.mean });
  return found;
}

const percent = (share: number) => `${Math.round(share * 100)} %`;
const megabits = (bytesPerSecond: number) => `${((bytesPerSecond * 8) / 1e6).toFixed(0)} Mbit/s`;

/** One line per saturated resource, as the console and the report say it. */
export function describeSaturation(s: Saturation): string {
  switch (s.resource) {
    case "nic":
      return `network: ${s.interface} ${s.direction === "rx" ? "received" : "sent"} ${megabits(s.rate)}, ${percent(s.rate / s.limit)} of ${s.label} (${megabits(s.limit)})`;
    case "device":
      return `device: ${s.device} had I/O in flight ${percent(s.util)} of the time`;
    case "cpu":
      return `client CPU: all cores ${percent(s.busy)} busy`;
    case "thread":
      return `client CPU: a thread of ${s.process} ran ${percent(s.busy)} of the time (one core is its limit)`;
  }
}
