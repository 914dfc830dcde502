/**
 * Timing child processes the way /usr/bin/time does, with nothing but bash: the child runs under a bash
 * wrapper that takes the wall time around it ($EPOCHREALTIME) and its CPU time from `times` (the user and
 * system seconds of the shell's waited-for children, i.e. the tool's rusage). And peak RSS of a running
 * process from /proc/<pid>/status (VmHWM, the kernel's own high-water mark), and its CPU time over time
 * from /proc/<pid>/stat, for the CPU of a window inside its run.
 */
import { execa } from "execa";
import { readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface Timed {
  wall: number;
  user: number;
  sys: number;
  /** user + sys */
  cpu: number;
  stdout: string;
  stderr: string;
  /** The tool's CPU seconds over time, when `sampleCpu` asked for them. */
  cpuSamples?: CpuSample[];
}

/** The CPU seconds (user + system, all threads) a process had used at a wall-clock instant (epoch ms). */
export interface CpuSample {
  at: number;
  cpu: number;
}

const WRAPPER = `
t0=$EPOCHREALTIME
if [[ $BENCH_DISCARD == 1 ]]; then "$@" >/dev/null; else "$@"; fi
rc=$?
t1=$EPOCHREALTIME
{ echo "$t0 $t1 $rc"; times; } >"$BENCH_TIMES"
exit $rc`;

export interface TimedOptions {
  env?: Record<string, string>;
  cwd?: string;
  /** Send the tool's stdout to /dev/null (it is not read, and a pipe would cost the reader's CPU). */
  discardStdout?: boolean;
  /** Sample the tool's CPU time every this many ms while it runs (see cpuWithin). */
  sampleCpu?: number;
}

/** Runs file with args; throws with the tool's stderr when it fails. */
export async function timed(
  file: string,
  args: readonly string[],
  options: TimedOptions = {},
): Promise<Timed> {
  const dir = await mkdtemp(join(tmpdir(), "benchspec-bench-times-"));
  const timesFile = join(dir, "times");
  try {
    const child = execa("bash", ["-c", WRAPPER, "bench", file, ...args], {
      env: {
        ...options.env,
        LC_ALL: "C",
        BENCH_TIMES: timesFile,
        BENCH_DISCARD: options.discardStdout ? "1" : "0",
      },
      cwd: options.cwd,
      reject: false,
      stdin: "ignore",
      maxBuffer: 64 * 2 ** 20,
    });
    const sampler = options.sampleCpu ? sampleToolCpu(child.pid!, options.sampleCpu) : undefined;
    const result = await child;
    const cpuSamples = sampler?.stop();
    const [line, , children] = (await readFile(timesFile, "utf8").catch(() => "")).split("\n");
    if (result.exitCode !== 0 || !line || !children) {
      throw new Error(
        `${file.split("/").at(-1)} ${args.slice(0, 3).join(" ")} … failed (${result.exitCode}): ${tail(result.stderr)}`,
      );
    }
    const [t0, t1] = line.split(" ").map(Number) as [number, number];
    const [user, sys] = children.split(" ").map(parseTimes) as [number, number];
    return {
      wall: t1 - t0,
      user,
      sys,
      cpu: user + sys,
      stdout: String(result.stdout),
      stderr: String(result.stderr),
      // And its total when it exited, which the wrapper measured.
      ...(cpuSamples && { cpuSamples: [...cpuSamples, { at: t1 * 1000, cpu: user + sys }] }),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** bash `times` prints e.g. "1m2.345s". */
function parseTimes(value: string): number {
  const match = /^(\d+)m([\d.]+)s$/.exec(value.trim());
  return match ? Number(match[1]) * 60 + Number(match[2]) : NaN;
}

const tail = (text: unknown) => String(text).trim().split("\n").slice(-3).join(" | ").slice(0, 300);

/** Samples VmHWM of pid until stop() is called; returns the largest value seen, in bytes. */
export function samplePeakRss(pid: number, everyMs = 50): { stop(): number } {
  let peak = 0;
  const read = () => {
    try {
      const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      if (match) peak = Math.max(peak, Number(match[1]) * 1024);
    } catch {
      // the process has exited
    }
  };
  read();
  const timer = setInterval(read, everyMs);
  return {
    stop() {
      read();
      clearInterval(timer);
      return peak;
    },
  };
}

let ticksPerSecond: number | undefined;

/**
 * Samples the CPU time of the tool the bash wrapper `shell` runs (its child), every `everyMs`. The kernel
 * counts it in clock ticks (10 ms here), so a window's CPU is good to a tick or two at each end.
 */
function sampleToolCpu(shell: number, everyMs: number): { stop(): CpuSample[] } {
  ticksPerSecond ??= Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }));
  // Before the wrapper has started the tool, the tool has used nothing.
  const samples: CpuSample[] = [{ at: Date.now(), cpu: 0 }];
  let tool: number | undefined;
  const read = () => {
    try {
      tool ??=
        Number(readFileSync(`/proc/${shell}/task/${shell}/children`, "utf8").trim().split(" ")[0]) ||
        undefined;
      if (tool === undefined) return;
      // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
      const stat = readFileSync(`/proc/${tool}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      samples.push({ at: Date.now(), cpu: (Number(fields[11]) + Number(fields[12])) / ticksPerSecond! });
    } catch {
      // not started yet, or exited
    }
  };
  const timer = setInterval(read, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return samples;
    },
  };
}

/** CPU seconds used between two instants (epoch ms), linear between the samples around each. */
export function cpuWithin(samples: readonly CpuSample[], start: number, end: number): number {
  const at = (t: number) => {
    const after = samples.findIndex((s) => s.at >= t);
    if (after <= 0)
      throw new Error(
        `no CPU samples around ${new Date(t).toISOString()} (sampled ${new Date(samples[0]!.at).toISOString()} to ${new Date(samples.at(-1)!.at).toISOString()})`,
      );
    const [a, b] = [samples[after - 1]!, samples[after]!];
    return a.cpu + ((b.cpu - a.cpu) * (t - a.at)) / (b.at - a.at);
  };
  return at(end) - at(start);
}
