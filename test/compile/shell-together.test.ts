/**
 * A case over several targets at once in the compiled script: one fio per target released together, one row
 * of them all made as benchspec run makes it — sums over the common window, each target's own figures in
 * `targets`, the percentiles of their pooled bins computed in awk exactly as the run model's histograms give
 * them (checked on generated bins against src/rows/histogram.ts, and on a real run's row).
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { encodeBins, latencyOfHistogram, mergeHistograms } from "../../src/rows/histogram.js";
import { ResultRowSchema, TimeseriesRowSchema, type ResultRow } from "../../src/rows/row.js";
import { mergePartSeries } from "../../src/results/merge-series.js";
import { tempDirs } from "../support/temp.js";
import { ROOT } from "../support/spec.js";

const BIN = join(ROOT, "bin", "benchspec.js");
const newDir = tempDirs("benchspec-together-");

/** runtime.sh's latency-bins functions, to run on their own. */
async function binsLibrary(): Promise<string> {
  const runtime = await readFile(join(ROOT, "src/compile/shell/runtime.sh"), "utf8");
  const fn = (name: string) => new RegExp(`^${name}\\(\\) \\{\\n[\\s\\S]*?\\n\\}\\n`, "m").exec(runtime)![0];
  return ["bs_bins_cut", "bs_bins_json", "bs_bins_pooled"].map(fn).join("\n");
}

describe("bs_bins_pooled", () => {
  it("gives the percentiles and mean of the parts' merged histograms", async () => {
    const library = await binsLibrary();
    const part = fc.record({
      bins: fc.dictionary(fc.integer({ min: 1, max: 5e10 }).map(String), fc.integer({ min: 1, max: 5000 }), {
        minKeys: 1,
        maxKeys: 60,
      }),
      mean: fc.double({ min: 1e-6, max: 10, noNaN: true }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(part, { minLength: 1, maxLength: 4 }), async (parts) => {
        const work = await newDir();
        const bins = parts.flatMap((p, i) => Object.entries(p.bins).map(([ns, n]) => `${i} ${ns} ${n}`));
        await writeFile(join(work, "bins"), `${bins.join("\n")}\n`);
        await writeFile(join(work, "means"), parts.map((p, i) => `${i} ${p.mean}\n`).join(""));
        const { stdout } = await execa("bash", [
          "-c",
          `${library}\nbs_bins_pooled "$1" "$2"`,
          "x",
          join(work, "bins"),
          join(work, "means"),
        ]);
        const pooled = JSON.parse(stdout) as Record<string, number>;
        const histograms = parts.map((p) =>
          encodeBins(Object.entries(p.bins).map(([ns, n]) => [Number(ns), n])),
        );
        const expected = latencyOfHistogram(mergeHistograms(histograms))!;
        for (const key of ["p50", "p90", "p99", "p99.9"] as const)
          expect(pooled[key], key).toBe(expected[key]);
        const counts = parts.map((p) => Object.values(p.bins).reduce((a, b) => a + b, 0));
        const mean =
          parts.reduce((sum, p, i) => sum + p.mean * counts[i]!, 0) / counts.reduce((a, b) => a + b, 0);
        expect(pooled.mean).toBeCloseTo(mean, 12);
      }),
      { numRuns: 60 },
    );
  });
});

describe("a case over two targets at once in the script", () => {
  it("runs one fio per target together and prints one row of both", async () => {
    const work = await newDir();
    const spec = join(work, "together.yaml");
    await writeFile(
      spec,
      stringify({
        benchspec: 1,
        name: "together",
        targets: { a: { kind: "fs", path: work }, b: { kind: "fs", path: work } },
        workloads: [
          {
            name: "both",
            engine: "fio",
            target: { together: ["a", "b"] },
            op: "randread",
            ioengine: "psync",
            size: "4MiB",
            bs: "4KiB",
            jobs: 2,
            repeat: 2,
          },
        ],
      }),
    );
    const out = join(work, "c");
    const compiled = await execa("node", [BIN, "compile", spec, "--target", "shell,fio", "-o", out], {
      all: true,
    });
    expect(compiled.all).not.toContain("left out");
    const script = await execa("bash", [join(out, "benchspec.sh")], { reject: false });
    expect(script.exitCode, script.stderr).toBe(0);
    const rows = script.stdout
      .split("\n")
      .map((line) => ResultRowSchema.parse(JSON.parse(line)) as ResultRow);
    expect(rows.map((row) => [row.case, row.repetition])).toEqual([
      ["both.a+b.randread", 1],
      ["both.a+b.randread", 2],
    ]);
    for (const row of rows) {
      expect(row.ok, row.error).toBe(true);
      const parts = row.targets!;
      expect(parts.map((part) => part.target)).toEqual(["a", "b"]);
      for (const part of parts) expect(part.bytes).toBeGreaterThan(0);
      expect(row.bytes).toBe(parts[0]!.bytes + parts[1]!.bytes);
      expect(row.ops).toBe(parts[0]!.ops + parts[1]!.ops);
      // Released together, each for its own runtime: the window is the longer one.
      expect(row.startSpread).toBe(0);
      expect(parts.map((part) => part.start)).toEqual([row.start, row.start]);
      expect(row.seconds).toBe(Math.max(...parts.map((part) => part.seconds)));
      expect(row.throughput).toBeCloseTo(row.bytes / row.seconds, 0);
      // fio's bins of both, every operation in them; the row's percentiles are theirs as run pools them.
      const bins = Object.entries(row.latencyBins!).map(([ns, n]) => [Number(ns), n] as const);
      expect(bins.reduce((sum, [, n]) => sum + n, 0)).toBe(row.ops);
      const pooled = latencyOfHistogram(mergeHistograms([encodeBins(bins)]))!;
      expect(row.latency).toMatchObject({
        p50: pooled.p50,
        p90: pooled.p90,
        p99: pooled.p99,
        "p99.9": pooled["p99.9"],
      });
      const mean = parts.reduce((sum, part) => sum + part.latency!.mean! * part.ops, 0) / row.ops;
      expect(row.latency!.mean).toBeCloseTo(mean, 9);
    }
  });
});

describe("a case over two targets at once with preconditioning and a time series", () => {
  it("preconditions each target, and keeps each target's series and their sum as run merges them", async () => {
    const work = await newDir();
    const [dirA, dirB] = [join(work, "a"), join(work, "b")];
    await execa("mkdir", ["-p", dirA, dirB]);
    const spec = join(work, "together.yaml");
    await writeFile(
      spec,
      stringify({
        benchspec: 1,
        name: "together-steps",
        targets: { a: { kind: "fs", path: dirA }, b: { kind: "fs", path: dirB } },
        workloads: [
          {
            name: "both",
            engine: "fio",
            target: { together: ["a", "b"] },
            op: "randread",
            ioengine: "psync",
            size: "4MiB",
            bs: "4KiB",
            duration: "1s",
            sample: "100ms",
            precondition: { passes: 1 },
            repeat: 1,
          },
        ],
      }),
    );
    const out = join(work, "c");
    const compiled = await execa("node", [BIN, "compile", spec, "--target", "shell,fio", "-o", out], {
      all: true,
    });
    expect(compiled.all).not.toContain("left out");
    const series = join(work, "timeseries.ndjson");
    const script = await execa("bash", [join(out, "benchspec.sh")], {
      reject: false,
      env: { BENCHSPEC_TIMESERIES: series },
    });
    expect(script.exitCode, script.stderr).toBe(0);
    // Each target's own precondition sections ran (fio names the job it starts), one target after the other.
    const preconditioned = [...script.stderr.matchAll(/^(both\.[ab]\.precondition-1): \(g=/gm)].map(
      (m) => m[1],
    );
    expect(preconditioned).toEqual(["both.a.precondition-1", "both.b.precondition-1"]);
    const [row] = script.stdout.split("\n").map((line) => ResultRowSchema.parse(JSON.parse(line)));
    expect(row!.ok, row!.error).toBe(true);
    const points = (await readFile(series, "utf8"))
      .split("\n")
      .filter(Boolean)
      .map((line) => TimeseriesRowSchema.parse(JSON.parse(line)));
    const own = (target: string) => points.filter((p) => p.target === target);
    expect(own("a").length).toBeGreaterThanOrEqual(5);
    expect(own("b").length).toBeGreaterThanOrEqual(5);
    // The sum, as run's mergePartSeries makes it from the same points (both fios started at the release).
    const expected = mergePartSeries(
      ["a", "b"].map((name) => ({
        name,
        offset: 0,
        points: own(name).map(({ t, throughput, iops }) => ({ t, throughput, iops })),
      })),
      "target",
      0.1,
    ).filter((p) => !("target" in p));
    const summed = points.filter((p) => p.target === undefined);
    expect(summed.map((p) => p.t)).toEqual(expected.map((p) => Number(p.t.toPrecision(9))));
    for (const [i, p] of summed.entries()) {
      expect(p.throughput).toBeCloseTo(expected[i]!.throughput, -1);
      // A sample in which neither fio did I/O (a busy machine) sums to 0, as run's does.
      if (expected[i]!.iops === 0) expect(p.iops).toBe(0);
      else expect(p.iops / expected[i]!.iops).toBeCloseTo(1, 6);
    }
  });
});
