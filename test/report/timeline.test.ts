/** The workload's clock of the x axes `elapsed` and `written`: sums a calculator checks. */
import { describe, expect, it } from "vitest";
import { thinned, timelinePoints, writeShare } from "../../src/report/charts/timeline-data.js";

const MiB = 2 ** 20;
const GiB = 2 ** 30;
const T0 = Date.parse("2026-01-01T00:00:00Z");

describe("timeline points", () => {
  // Case a: two repetitions, the second 10 s after the first started (1 s of samples, then 8 s idle).
  // Case b: one repetition 20 s after a's first; it writes half its bytes (a mix).
  const cases = [
    {
      id: "a",
      writeShare: 1,
      repetitions: [
        {
          repetition: 0,
          start: T0,
          points: [
            { t: 0.5, throughput: 512 * MiB, iops: 10 },
            { t: 1, throughput: 1024 * MiB, iops: 20 },
          ],
        },
        {
          repetition: 1,
          start: T0 + 10_000,
          points: [
            // fio's artefact: no bytes measured here (NaN), only IOPS.
            { t: 0.5, throughput: NaN, iops: 30 },
            { t: 1, throughput: 2048 * MiB, iops: 40 },
          ],
        },
      ],
    },
    {
      id: "b",
      writeShare: 0.5,
      repetitions: [
        { repetition: 0, start: T0 + 20_000, points: [{ t: 2, throughput: 1024 * MiB, iops: 50 }] },
      ],
    },
  ];

  it("elapsed: seconds since the workload's first repetition started, idle gaps included", () => {
    const points = timelinePoints(cases, "elapsed", "iops");
    expect(points.get("a")).toEqual([
      { x: 0.5, y: 10, r: 0 },
      { x: 1, y: 20, r: 0 },
      { x: 10.5, y: 30, r: 1 },
      { x: 11, y: 40, r: 1 },
    ]);
    expect(points.get("b")).toEqual([{ x: 22, y: 50, r: 0 }]);
  });

  it("written: each sample's write throughput × its interval, summed over the workload in time order", () => {
    const points = timelinePoints(cases, "written", "throughput");
    // a r0: 512 MiB/s × 0.5 s = 0.25 GiB; then 1024 MiB/s × 0.5 s = 0.5 GiB → 0.75 GiB.
    // a r1: the artefact has no bytes; 2048 MiB/s × (1 − 0) s = 2 GiB → 2.75 GiB.
    // b: 1024 MiB/s × 2 s × 0.5 = 1 GiB → 3.75 GiB.
    expect(points.get("a")!.map((p) => p.x)).toEqual([0.25, 0.75, 2.75]);
    expect(points.get("a")!.map((p) => p.y)).toEqual([512 * MiB, 1024 * MiB, 2048 * MiB]);
    expect(points.get("b")!.map((p) => p.x)).toEqual([3.75]);
    // IOPS on the same axis: the artefact point counts the bytes written before it (0.75 GiB).
    const iops = timelinePoints(cases, "written", "iops").get("a")!;
    expect(iops.map((p) => p.x)).toEqual([0.25, 0.75, 0.75, 2.75]);
    expect(2.75 * GiB).toBe(512 * MiB * 0.5 + 1024 * MiB * 0.5 + 2048 * MiB);
  });

  it("no repetitions: no points", () => {
    expect(timelinePoints([], "elapsed", "iops").size).toBe(0);
  });
});

describe("write share and thinning", () => {
  it("writing ops write everything, reading ops nothing, mixed ops what their read share leaves", () => {
    expect(writeShare("randwrite", {})).toBe(1);
    expect(writeShare("randread", {})).toBe(0);
    expect(writeShare("randrw", { read: 70 })).toBeCloseTo(0.3);
    expect(writeShare("get", {})).toBe(0);
    expect(writeShare("put", {})).toBe(1);
  });

  it("thinned: means of consecutive points, never across two repetitions", () => {
    const points = [
      { x: 0, y: 1, r: 0 },
      { x: 1, y: 3, r: 0 },
      { x: 2, y: 5, r: 0 },
      { x: 10, y: 7, r: 1 },
      { x: 11, y: 9, r: 1 },
    ];
    expect(thinned(points, 5)).toEqual(points);
    expect(thinned(points, 3)).toEqual([
      { x: 0.5, y: 2, r: 0 },
      { x: 2, y: 5, r: 0 },
      { x: 10.5, y: 8, r: 1 },
    ]);
  });
});
