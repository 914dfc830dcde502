/**
 * What the host was doing while a repetition ran: CPU, network interfaces, block devices and the processes
 * benchspec drives, sampled from /proc at an interval. Each sample holds rates over the interval that ends
 * at its time `t` (two readings of cumulative counters), so samples are checkable by hand against the
 * counters and sum to what moved. Reading /proc spawns nothing; the cost of a sample is measured by
 * `npm run bench`.
 */
import {
  descendants,
  parseCpuTimes,
  parseDiskstats,
  parseNetDev,
  parseProcess,
  parseSchedstat,
  readProc,
  taskIds,
  USER_HZ,
  wholeDevices,
  type CpuTimes,
  type DiskCounters,
  type NetCounters,
} from "./procfs.js";
import { SELF, type TelemetrySample } from "../rows/telemetry.js";

interface Reading {
  t: number;
  cpu: CpuTimes;
  net: Map<string, NetCounters>;
  disk: Map<string, DiskCounters>;
  /**
   * Per process (`pid`): CPU ticks and RSS; per thread (`pid/tid`): nanoseconds it ran or waited for a core
   * (its demand for CPU, which a scheduler shared with other work does not hide).
   */
  tasks: Map<
    string,
    { name: string; cpuTicks: number; rssBytes: number } | { name: string; demandNs: number }
  >;
}

export interface SamplerOptions {
  intervalMs: number;
  /** The process whose tree is measured (default: this one). */
  pid?: number;
  now?: () => number;
}

export class HostSampler {
  readonly #intervalMs: number;
  readonly #pid: number;
  readonly #now: () => number;
  readonly #devices = wholeDevices();
  readonly #samples: TelemetrySample[] = [];
  #last: Reading | undefined;
  /** The reading before #last: a too-short final interval is merged into the one before it. */
  #beforeLast: Reading | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: SamplerOptions) {
    this.#intervalMs = options.intervalMs;
    this.#pid = options.pid ?? process.pid;
    this.#now = options.now ?? Date.now;
  }

  /** Takes the first reading (the baseline) and samples every interval from then on. */
  start(): void {
    this.#last = this.#read();
    this.#timer = setInterval(() => this.#sample(), this.#intervalMs);
    // A sampler never keeps the process alive on its own.
    this.#timer.unref();
  }

  /**
   * Stops, with a last sample up to now (so a repetition shorter than the interval has one). A final
   * interval under half the others joins the one before it: CPU times tick every 10 ms, too coarse for a
   * rate over a few milliseconds.
   */
  stop(): TelemetrySample[] {
    if (this.#timer === undefined) return this.#samples;
    clearInterval(this.#timer);
    this.#timer = undefined;
    const last = this.#last!;
    if (this.#beforeLast && this.#now() - last.t < this.#intervalMs / 2) {
      this.#samples.pop();
      this.#last = this.#beforeLast;
    }
    this.#sample();
    return this.#samples;
  }

  #sample(): void {
    const previous = this.#last;
    if (!previous) return;
    const current = this.#read();
    if (current.t <= previous.t) return;
    this.#samples.push(rates(previous, current));
    this.#beforeLast = previous;
    this.#last = current;
  }

  #read(): Reading {
    const t = this.#now();
    const tasks: Reading["tasks"] = new Map();
    for (const pid of [this.#pid, ...descendants(this.#pid)]) {
      const stat = readProc(`/proc/${pid}/stat`);
      const status = readProc(`/proc/${pid}/status`);
      if (stat === undefined || status === undefined) continue;
      const process = parseProcess(stat, status);
      const name = pid === this.#pid ? SELF : process.name;
      tasks.set(`${pid}`, { ...process, name });
      for (const [tid, demandNs] of threadDemand(pid)) tasks.set(`${pid}/${tid}`, { name, demandNs });
    }
    return {
      t,
      cpu: parseCpuTimes(readProc("/proc/stat") ?? ""),
      net: parseNetDev(readProc("/proc/net/dev") ?? ""),
      disk: parseDiskstats(readProc("/proc/diskstats") ?? "", (name) => this.#devices.has(name)),
      tasks,
    };
  }
}

/** Each thread's time running or runnable, in ns (a single-threaded process has one thread: itself). */
function threadDemand(pid: number): [string, number][] {
  const threads: [string, number][] = [];
  for (const tid of taskIds(pid)) {
    const schedstat = readProc(`/proc/${pid}/task/${tid}/schedstat`);
    if (schedstat !== undefined) threads.push([tid, parseSchedstat(schedstat)]);
  }
  return threads;
}

/** The rates between two readings: what every counter moved, per second of the interval. */
export function rates(a: Reading, b: Reading): TelemetrySample {
  const seconds = (b.t - a.t) / 1000;
  const total = b.cpu.total - a.cpu.total;
  const share = (key: "user" | "system" | "iowait") => (total > 0 ? (b.cpu[key] - a.cpu[key]) / total : 0);
  const net: TelemetrySample["net"] = {};
  for (const [name, now] of b.net) {
    const before = a.net.get(name);
    if (!before) continue;
    const rx = (now.rxBytes - before.rxBytes) / seconds;
    const tx = (now.txBytes - before.txBytes) / seconds;
    // An interface that moved nothing is left out: 0 is what a reader assumes for it.
    if (rx > 0 || tx > 0) net[name] = { rx, tx };
  }
  const disk: TelemetrySample["disk"] = {};
  for (const [name, now] of b.disk) {
    const before = a.disk.get(name);
    if (
      !before ||
      (now.reads === before.reads && now.writes === before.writes && now.busyMs === before.busyMs)
    )
      continue;
    disk[name] = {
      read: (now.readBytes - before.readBytes) / seconds,
      write: (now.writeBytes - before.writeBytes) / seconds,
      readOps: (now.reads - before.reads) / seconds,
      writeOps: (now.writes - before.writes) / seconds,
      util: Math.min(1, (now.busyMs - before.busyMs) / (b.t - a.t)),
    };
  }
  const procs: TelemetrySample["procs"] = {};
  for (const [key, task] of b.tasks) {
    // A task that started within the interval used all its CPU in it.
    const before = a.tasks.get(key);
    const entry = (procs[task.name] ??= { cpu: 0, rss: 0, count: 0, busiestThread: 0 });
    if ("demandNs" in task) {
      const demand = (task.demandNs - (before && "demandNs" in before ? before.demandNs : 0)) / 1e6;
      entry.busiestThread = Math.max(entry.busiestThread, Math.min(1, demand / (b.t - a.t)));
    } else {
      entry.cpu +=
        (task.cpuTicks - (before && "cpuTicks" in before ? before.cpuTicks : 0)) / USER_HZ / seconds;
      entry.rss += task.rssBytes;
      entry.count += 1;
    }
  }
  return {
    t: b.t,
    seconds,
    cpu: { user: share("user"), system: share("system"), iowait: share("iowait") },
    net,
    disk,
    procs,
  };
}
