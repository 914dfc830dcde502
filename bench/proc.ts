/**
 * Timing child processes the way /usr/bin/time does, with nothing but bash: the child runs under a bash
 * wrapper that takes the wall time around it ($EPOCHREALTIME) and its CPU time from `times` (the user and
 * system seconds of the shell's waited-for children, i.e. the tool's rusage). And peak RSS of a running
 * process from /proc/<pid>/status (VmHWM, the kernel's own high-water mark).
 */
import { execa } from "execa";
import { readFileSync } from "node:fs";
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
    const result = await execa("bash", ["-c", WRAPPER, "bench", file, ...args], {
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
