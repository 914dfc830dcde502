import { describe, expect, it } from "vitest";
import { combineSummaries, summarizeTelemetry } from "../../src/telemetry/summary.js";
import { describeSaturation, saturation } from "../../src/telemetry/verdict.js";
import type { TelemetrySample } from "../../src/rows/telemetry.js";

const sample = (t: number, seconds: number, overrides: Partial<TelemetrySample> = {}): TelemetrySample => ({
  t,
  seconds,
  cpu: { user: 0.1, system: 0.05, iowait: 0 },
  net: {},
  disk: {},
  procs: { benchspec: { cpu: 0.1, rss: 1e8, count: 1, busiestThread: 0.05 } },
  ...overrides,
});

describe("telemetry summary", () => {
  it("weights each sample by its interval: a mean rate is what moved over the time", () => {
    const summary = summarizeTelemetry([
      sample(1000, 1, { net: { eth0: { rx: 100, tx: 0 } } }),
      sample(4000, 3, { net: { eth0: { rx: 500, tx: 10 } } }),
    ])!;
    expect(summary.net.eth0!.rx).toEqual({ mean: (100 * 1 + 500 * 3) / 4, peak: 500 });
    expect(summary.net.eth0!.tx.mean).toBeCloseTo(30 / 4);
    expect(summary.seconds).toBe(4);
  });

  it("counts a resource missing from a sample as idle in it, and combines repetitions by their seconds", () => {
    const first = summarizeTelemetry([
      sample(1000, 1, { net: { eth0: { rx: 100, tx: 0 } } }),
      sample(2000, 1),
    ])!;
    expect(first.net.eth0!.rx).toEqual({ mean: 50, peak: 100 });
    const second = summarizeTelemetry([sample(5000, 2, { net: { eth0: { rx: 400, tx: 0 } } })])!;
    const both = combineSummaries([first, second])!;
    expect(both.seconds).toBe(4);
    expect(both.net.eth0!.rx).toEqual({ mean: (100 + 0 + 400 * 2) / 4, peak: 400 });
    expect(both.cpu.busy.mean).toBeCloseTo(0.15);
  });

  it("over a window, weighs each sample by the part of it inside the window", () => {
    // Intervals [0, 1000] and [1000, 2000] ms; the window [500, 2000] takes half of the first.
    const summary = summarizeTelemetry(
      [
        sample(1000, 1, { net: { eth0: { rx: 100, tx: 0 } } }),
        sample(2000, 1, { net: { eth0: { rx: 400, tx: 0 } } }),
      ],
      { start: 500, end: 2000 },
    )!;
    expect(summary.seconds).toBe(1.5);
    expect(summary.net.eth0!.rx.mean).toBeCloseTo((100 * 0.5 + 400 * 1) / 1.5);
    expect(summarizeTelemetry([sample(1000, 1)], { start: 3000, end: 4000 })).toBeUndefined();
  });

  it("has nothing to say about no samples", () => {
    expect(summarizeTelemetry([])).toBeUndefined();
  });
});

describe("saturation verdict", () => {
  it("an idle client: nothing saturated", () => {
    expect(saturation(summarizeTelemetry([sample(1000, 1), sample(2000, 1)])!)).toEqual([]);
  });

  it("a client whose event loop never rests: its thread, though the host's cores are not all busy", () => {
    const busy = { benchspec: { cpu: 1.1, rss: 1e8, count: 1, busiestThread: 0.97 } };
    const found = saturation(
      summarizeTelemetry([sample(1000, 1, { procs: busy }), sample(2000, 1, { procs: busy })])!,
    );
    expect(found).toEqual([{ resource: "thread", process: "benchspec", busy: 0.97 }]);
    expect(describeSaturation(found[0]!)).toBe(
      "client CPU: a thread of benchspec ran 97 % of the time (one core is its limit)",
    );
  });

  it("a NIC at its declared limit, only when the limit is declared", () => {
    const limit = 200e6 / 8;
    const summary = summarizeTelemetry([sample(1000, 2, { net: { veth0: { rx: 0, tx: 0.95 * limit } } })])!;
    expect(saturation(summary)).toEqual([]);
    const found = saturation(summary, [{ interface: "veth0", throughput: limit, label: "shaped link" }]);
    expect(found).toHaveLength(1);
    expect(describeSaturation(found[0]!)).toBe(
      "network: veth0 sent 190 Mbit/s, 95 % of shaped link (200 Mbit/s)",
    );
  });

  it("a slow device with an idle client: the device", () => {
    const disk = { loop3: { read: 0, write: 4e6, readOps: 0, writeOps: 1000, util: 0.99 } };
    const found = saturation(summarizeTelemetry([sample(1000, 1, { disk }), sample(2000, 1, { disk })])!);
    expect(found).toEqual([{ resource: "device", device: "loop3", util: 0.99 }]);
  });
});
