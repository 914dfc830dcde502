import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { readFile } from "node:fs/promises";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { parseProcess, USER_HZ } from "../../src/telemetry/procfs.js";
import { HostSampler } from "../../src/telemetry/sampler.js";
import { SELF } from "../../src/rows/telemetry.js";
import type { TelemetrySample } from "../../src/rows/telemetry.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const moved = (samples: TelemetrySample[], pick: (s: TelemetrySample) => number) =>
  samples.reduce((total, s) => total + pick(s) * s.seconds, 0);

describe("HostSampler on this machine's /proc", () => {
  let sampler: HostSampler | undefined;
  afterEach(() => void sampler?.stop());

  it("sees a busy child process by name: its CPU over the samples is the CPU time it used", async () => {
    sampler = new HostSampler({ intervalMs: 200 });
    sampler.start();
    const child = execa("sh", ["-c", "exec dd if=/dev/zero of=/dev/null bs=4k count=100000000"], {
      reject: false,
    });
    await sleep(1200);
    // Stopped first, so it uses no CPU between the sampler's last reading and the kernel's count below.
    process.kill(child.pid!, "SIGSTOP");
    await sleep(50);
    const samples = sampler.stop();
    const stat = await readFile(`/proc/${child.pid}/stat`, "latin1");
    child.kill("SIGKILL");
    await child;
    expect(samples.length).toBeGreaterThanOrEqual(3);
    const used = parseProcess(stat, "").cpuTicks / USER_HZ;
    expect(used).toBeGreaterThan(0.1);
    // The kernel's own count: the samples account for all of it.
    expect(Math.abs(moved(samples, (s) => s.procs.dd?.cpu ?? 0) - used)).toBeLessThanOrEqual(0.03);
    // dd never blocks: after its first interval (its start), its thread wanted a core all the time, however
    // busy the machine's cores were with other work.
    const dd = samples.flatMap((s) => (s.procs.dd ? [s.procs.dd] : []));
    expect(dd.every((p) => p.count === 1)).toBe(true);
    // (A wait is counted once it ends, so a single interval can read low or high, and time a CPU quota holds
    // the thread back is in neither count; their mean stays far above a thread that waits on I/O.)
    const middle = dd.slice(1, -2);
    expect(middle.reduce((sum, p) => sum + p.busiestThread, 0) / middle.length).toBeGreaterThan(0.7);
    expect(samples.every((s) => s.procs[SELF]!.rss > 10 * 2 ** 20)).toBe(true);
    const busy = samples.map((s) => s.cpu.user + s.cpu.system);
    expect(busy.every((b) => b > 0 && b <= 1)).toBe(true);
  });

  it("counts bytes sent over loopback at least as the transfer moved, on `lo` only", async () => {
    const size = 64 * 2 ** 20;
    const server = createServer((req, res) => {
      req.resume();
      req.on("end", () => res.end());
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    sampler = new HostSampler({ intervalMs: 100 });
    sampler.start();
    await new Promise<void>((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port, method: "PUT" }, (res) => {
        res.resume();
        res.on("end", resolve);
      });
      req.on("error", reject);
      req.end(Buffer.alloc(size));
    });
    const samples = sampler.stop();
    server.close();
    const lo = moved(samples, (s) => s.net.lo?.rx ?? 0);
    expect(lo).toBeGreaterThanOrEqual(size);
    // Loopback traffic on a test machine is more than ours, but not wildly more.
    expect(lo).toBeLessThan(size * 20);
  });

  it("gives a sample on stop even when the repetition was shorter than the interval", async () => {
    sampler = new HostSampler({ intervalMs: 10_000 });
    sampler.start();
    await sleep(50);
    const samples = sampler.stop();
    expect(samples).toHaveLength(1);
    expect(samples[0]!.seconds).toBeGreaterThan(0.04);
  });
});
