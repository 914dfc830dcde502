/**
 * The verdict a repetition's telemetry supports: which resource of the client host was saturated while the
 * storage was measured, if any.
 */
import type { TelemetrySummary } from "../rows/telemetry.js";

/** A resource busy for at least this share of the repetition (or of its declared limit) was the limit. */
export const SATURATED = 0.9;

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
