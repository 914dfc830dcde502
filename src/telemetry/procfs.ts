/**
 * Readers of the kernel's counters in /proc: cumulative since boot (or since a process started), so the
 * sampler turns two readings into rates. Pure parsers over the files' text, and the reads themselves, which
 * never spawn a process: a sample must cost next to nothing on the host it measures.
 */
import { readdirSync, readFileSync } from "node:fs";

/**
 * The unit of every time in /proc/stat and /proc/PID/stat: USER_HZ, which the kernel fixes at 100 on every
 * architecture Node runs on (whatever its internal tick rate), so no `getconf CLK_TCK` process is needed.
 */
export const USER_HZ = 100;
/** /proc/diskstats counts sectors of 512 bytes whatever the device's own sector size. */
export const SECTOR_BYTES = 512;

/** The CPU times of all cores together, in USER_HZ ticks. */
export interface CpuTimes {
  user: number;
  system: number;
  iowait: number;
  /** Every tick of every state: the denominator of a utilisation. */
  total: number;
}

export interface NetCounters {
  rxBytes: number;
  txBytes: number;
}

export interface DiskCounters {
  reads: number;
  writes: number;
  readBytes: number;
  writeBytes: number;
  /** Milliseconds during which the device had I/O in flight (its utilisation's numerator). */
  busyMs: number;
}

export interface ProcessCounters {
  /** Its command name (the kernel's `comm`: at most 15 characters). */
  name: string;
  /** user + system time, in USER_HZ ticks. */
  cpuTicks: number;
  rssBytes: number;
}

/** The first line of /proc/stat: `cpu user nice system idle iowait irq softirq steal guest guest_nice`. */
export function parseCpuTimes(stat: string): CpuTimes {
  const line = stat.slice(0, stat.indexOf("\n"));
  if (!line.startsWith("cpu ")) throw new Error("/proc/stat does not start with the cpu line");
  // guest and guest_nice are already counted in user and nice.
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line
    .slice(4)
    .trim()
    .split(/\s+/)
    .map(Number) as number[];
  const ticks = [user, nice, system, idle, iowait, irq, softirq, steal].map((n) => n ?? 0);
  return {
    user: user! + nice!,
    system: system! + (irq ?? 0) + (softirq ?? 0),
    iowait: iowait ?? 0,
    total: ticks.reduce((a, b) => a + b, 0),
  };
}

/** /proc/net/dev: two header lines, then `iface: rx_bytes rx_packets … (8 fields) tx_bytes …`. */
export function parseNetDev(text: string): Map<string, NetCounters> {
  const interfaces = new Map<string, NetCounters>();
  for (const line of text.split("\n").slice(2)) {
    const colon = line.indexOf(":");
    if (colon < 0) continue;
    const fields = line
      .slice(colon + 1)
      .trim()
      .split(/\s+/)
      .map(Number);
    interfaces.set(line.slice(0, colon).trim(), { rxBytes: fields[0]!, txBytes: fields[8]! });
  }
  return interfaces;
}

/**
 * /proc/diskstats: `major minor name reads merged sectors ms writes merged sectors ms in-flight io_ms …`.
 * Only the devices `keep` accepts (whole devices: a partition's I/O is its disk's too).
 */
export function parseDiskstats(text: string, keep: (name: string) => boolean): Map<string, DiskCounters> {
  const disks = new Map<string, DiskCounters>();
  for (const line of text.split("\n")) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 14 || !keep(fields[2]!)) continue;
    const n = (i: number) => Number(fields[i]);
    disks.set(fields[2]!, {
      reads: n(3),
      readBytes: n(5) * SECTOR_BYTES,
      writes: n(7),
      writeBytes: n(9) * SECTOR_BYTES,
      busyMs: n(12),
    });
  }
  return disks;
}

/**
 * /proc/PID/stat's CPU times and /proc/PID/status's VmRSS. The command name sits in parentheses and may
 * itself hold spaces and parentheses, so the fields are counted from the last ')'.
 */
export function parseProcess(stat: string, status: string): ProcessCounters {
  const close = stat.lastIndexOf(")");
  const name = stat.slice(stat.indexOf("(") + 1, close);
  // After ')': state is field 3 of proc(5), so field N is at index N - 3.
  const fields = stat.slice(close + 2).split(" ");
  const rss = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  return {
    name,
    cpuTicks: Number(fields[14 - 3]) + Number(fields[15 - 3]),
    // A kernel thread or a zombie has no VmRSS line.
    rssBytes: rss ? Number(rss[1]) * 1024 : 0,
  };
}

/**
 * /proc/PID/task/TID/schedstat: `ns on a CPU, ns waiting on a run queue, timeslices`. Their sum is the
 * time the thread wanted a CPU: on a busy host a thread that never blocks still reads as never resting.
 */
export function parseSchedstat(text: string): number {
  const [running, waiting] = text.trim().split(" ").map(Number);
  return (running ?? 0) + (waiting ?? 0);
}

/** Reads a /proc file, or undefined when it is gone (a process that ended between two reads). */
export function readProc(path: string): string | undefined {
  try {
    return readFileSync(path, "latin1");
  } catch {
    return undefined;
  }
}

/** The process's threads (their ids), or none when it is gone. */
export function taskIds(pid: number): string[] {
  try {
    return readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
}

/** The process's descendants, children first, through /proc/PID/task/TID/children of each of its threads. */
export function descendants(pid: number): number[] {
  const found: number[] = [];
  const visit = (parent: number) => {
    for (const tid of taskIds(parent)) {
      const children = readProc(`/proc/${parent}/task/${tid}/children`);
      for (const child of children?.trim().split(" ") ?? []) {
        if (child === "") continue;
        found.push(Number(child));
        visit(Number(child));
      }
    }
  };
  visit(pid);
  return found;
}

/** Whole block devices: what /sys/class/block lists without a `partition` file (a partition has one). */
export function wholeDevices(): Set<string> {
  const devices = new Set<string>();
  let names: string[] = [];
  try {
    names = readdirSync("/sys/class/block");
  } catch {
    return devices;
  }
  for (const name of names) {
    if (readProc(`/sys/class/block/${name}/partition`) === undefined) devices.add(name);
  }
  return devices;
}
