/**
 * The host telemetry sampler's own cost: CPU time per reading of /proc (the system's counters, every
 * interface and device, benchspec's process and its descendants with their threads), with a tree of child
 * processes like a run's (fio jobs, dd processes, a launched server), as a share of one core at the default
 * 1 s interval and at 100 ms. Target: under 1 % of a core at the default.
 */
import { execa } from "execa";
import { HostSampler } from "../src/telemetry/sampler.js";
import type { BenchLine } from "./lines.js";

const CHILDREN = 16;
const CYCLES = 300;

export async function benchTelemetry(log: (line: string) => void): Promise<BenchLine[]> {
  const children = Array.from({ length: CHILDREN }, () => execa("sleep", ["600"], { reject: false }));
  try {
    const sampler = () => new HostSampler({ intervalMs: 3_600_000 });
    // Warm the JIT and the dentry cache before timing.
    for (let i = 0; i < 20; i++) {
      const s = sampler();
      s.start();
      s.stop();
    }
    const before = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < CYCLES; i++) {
      const s = sampler();
      // start() takes the baseline reading, stop() the last one: two readings per cycle.
      s.start();
      s.stop();
    }
    const used = process.cpuUsage(before);
    const readings = CYCLES * 2;
    const cpuMs = (used.user + used.system) / 1000 / readings;
    const wallMs = (performance.now() - t0) / readings;
    log(
      `telemetry: ${cpuMs.toFixed(3)} ms CPU (${wallMs.toFixed(3)} ms wall) per reading, ${CHILDREN} children`,
    );
    const share = (intervalMs: number) => cpuMs / intervalMs;
    const line = (intervalMs: number, target: boolean): BenchLine => ({
      section: "host telemetry",
      metric: `sampler CPU at a ${intervalMs >= 1000 ? `${intervalMs / 1000} s` : `${intervalMs} ms`} interval (${CHILDREN} child processes)`,
      unit: "% of a core",
      engine: share(intervalMs) * 100,
      target: target ? "< 1 %" : "(information)",
      verdict: target ? (share(intervalMs) < 0.01 ? "PASS" : "BELOW") : "INFO",
      detail: { cpuMsPerReading: cpuMs, wallMsPerReading: wallMs, readings },
    });
    return [line(1000, true), line(100, false)];
  } finally {
    for (const child of children) child.kill();
    await Promise.all(children);
  }
}
