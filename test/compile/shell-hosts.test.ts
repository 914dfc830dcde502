/**
 * The compiled script as one of several copies, on this machine: copies agree on each repetition's start
 * through a barrier directory (started together whatever their pace), a copy that missed its instant or is
 * out of step with the others refuses the repetition, the latencies its rows carry pool as benchspec run's
 * histograms do, and `benchspec merge` makes the copies' outputs one run of several hosts. Real hosts (ssh,
 * Slurm) are in test/integration/script-hosts.test.ts.
 */
import { copyFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MinioServer } from "../../src/targets/s3/minio-server.js";
import { externalS3Target, minioWithBucket, s3Env } from "../engines/support.js";
import { stringify } from "yaml";
import { build } from "hdr-histogram-js";
import { encodeBins, latencyOfHistogram, mergeHistograms } from "../../src/rows/histogram.js";
import type { ResultRow } from "../../src/rows/row.js";
import { tempDirs } from "../support/temp.js";
import { ROOT } from "../support/spec.js";

const BIN = join(ROOT, "bin", "benchspec.js");
const newDir = tempDirs("benchspec-copies-");

const lines = async <T>(file: string): Promise<T[]> =>
  (await readFile(file, "utf8"))
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as T);

/** A small spec (dd and fio on a directory of `work`) compiled into `work/c`. */
async function compiled(work: string, name = "copies", op = "write"): Promise<string> {
  const spec = join(work, `${name}.yaml`);
  await writeFile(
    spec,
    stringify({
      benchspec: 1,
      name,
      targets: { scratch: { kind: "fs", path: work } },
      defaults: { repeat: 2 },
      workloads: [
        { name: "seq", engine: "dd", op, bs: "1MiB", count: 4 },
        {
          name: "rand",
          engine: "fio",
          op: "randread",
          ioengine: "psync",
          size: "4MiB",
          bs: "4KiB",
        },
      ],
    }),
  );
  const out = join(work, name);
  const result = await execa("node", [BIN, "compile", spec, "--target", "shell,fio", "-o", out], {
    all: true,
  });
  expect(result.exitCode, result.all).toBe(0);
  return out;
}

/** One copy of the script: its rows into DIR/results.ndjson (and its log beside them). */
function copy(script: string, dir: string, index: number, env: Record<string, string>) {
  return execa(
    "bash",
    ["-c", 'mkdir -p "$1" && exec bash "$2" >"$1/results.ndjson" 2>"$1/log"', "copy", dir, script],
    {
      reject: false,
      env: {
        BENCHSPEC_HOST_COUNT: "2",
        BENCHSPEC_HOST_INDEX: String(index),
        BENCHSPEC_HOST: `c${index}`,
        ...env,
      },
    },
  );
}

describe("the script as two copies on one barrier directory", () => {
  it("starts every repetition of both copies together, and merge makes one run of two hosts", async () => {
    const work = await newDir();
    const dir = await compiled(work);
    const barrier = join(work, "barrier");
    await mkdir(barrier);
    const script = join(dir, "benchspec.sh");
    // The second copy starts 2 s late: the first waits for it at the barrier of its first repetition.
    const first = copy(script, join(work, "out", "c0"), 0, {
      BENCHSPEC_BARRIER: barrier,
      BENCHSPEC_START_DELAY: "0.3",
    });
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const second = copy(script, join(work, "out", "c1"), 1, {
      BENCHSPEC_BARRIER: barrier,
      BENCHSPEC_START_DELAY: "0.3",
    });
    const results = await Promise.all([first, second]);
    for (const [i, result] of results.entries())
      expect(result.exitCode, await readFile(join(work, "out", `c${i}`, "log"), "utf8")).toBe(0);
    const rows = await Promise.all(
      [0, 1].map((i) => lines<ResultRow>(join(work, "out", `c${i}`, "results.ndjson"))),
    );
    expect(rows[0]!.map((row) => row.host)).toEqual(rows[0]!.map(() => "c0"));
    for (const [k, row] of rows[0]!.entries()) {
      const other = rows[1]![k]!;
      expect([other.case, other.repetition]).toEqual([row.case, row.repetition]);
      // Without the barrier the second copy would start 2 s late. Both release their I/O at one instant; the
      // stamp after it waits for a core, which a loaded CI gave one copy 119 ms late once.
      expect(Math.abs(Date.parse(row.start) - Date.parse(other.start)), row.case).toBeLessThan(500);
    }
    // Each copy kept its own directory (the run id gets the copy's index).
    expect(await readFile(join(work, "out", "c1", "log"), "utf8")).toMatch(/run \S+-h1\b/);

    await copyFile(join(dir, "plan.json"), join(work, "out", "plan.json"));
    const merged = join(work, "merged");
    const merge = await execa(
      "node",
      [BIN, "merge", join(work, "out", "c0"), join(work, "out", "c1"), "-o", merged],
      {
        reject: false,
        all: true,
      },
    );
    expect(merge.exitCode, merge.all).toBe(0);
    const out = await lines<ResultRow>(join(merged, "results.ndjson"));
    expect(out).toHaveLength(rows[0]!.length);
    for (const [k, row] of out.entries()) {
      const parts = [rows[0]![k]!, rows[1]![k]!];
      expect(row.hosts!.map((h) => h.host)).toEqual(["c0", "c1"]);
      expect(row.bytes).toBe(parts[0]!.bytes + parts[1]!.bytes);
      expect(row.startSpread!).toBeLessThan(0.1);
      expect(row.host).toBeUndefined();
      if (row.engine !== "fio") continue;
      // fio's json+ bins, every operation in them: pooled, the row's percentiles.
      for (const part of parts) expect(sum(Object.values(part.latencyBins!))).toBe(part.ops);
      const pooled = latencyOfHistogram(
        mergeHistograms(
          parts.map((part) => encodeBins(Object.entries(part.latencyBins!).map(([ns, n]) => [+ns, n]))),
        ),
      )!;
      expect(row.latency).toMatchObject({ p50: pooled.p50, p90: pooled.p90, p99: pooled.p99 });
    }
    const summary = JSON.parse(await readFile(join(merged, "summary.json"), "utf8")) as {
      cases: { id: string }[];
    };
    expect(summary.cases.map((c) => c.id)).toEqual([...new Set(out.map((row) => row.case))]);
    expect(await readFile(join(merged, "report.html"), "utf8")).toContain("c1");
  });

  it("refuses a repetition when the copies are out of step", async () => {
    const work = await newDir();
    const barrier = join(work, "barrier");
    await mkdir(barrier);
    // Two different specs on one barrier: their first repetitions are of other cases.
    const [a, b] = [await compiled(work, "one", "write"), await compiled(work, "two", "read")];
    const env = { BENCHSPEC_BARRIER: barrier, BENCHSPEC_BARRIER_TIMEOUT: "20" };
    const results = await Promise.all([
      copy(join(a, "benchspec.sh"), join(work, "a"), 0, env),
      copy(join(b, "benchspec.sh"), join(work, "b"), 1, env),
    ]);
    expect(results.map((r) => r.exitCode)).toEqual([1, 1]);
    const rows = await lines<ResultRow>(join(work, "a", "results.ndjson"));
    expect(rows[0]!.ok).toBe(false);
    expect(rows[0]!.error).toMatch(/copy 1 is at seq\.scratch\.read#1#false in start slot 0.*out of step/);
  });
});

describe("two copies reading from S3", () => {
  let server: MinioServer;
  beforeAll(async () => {
    server = await minioWithBucket("copies");
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("start the timed reads at the agreed instant, not the untimed uploads before them", async () => {
    const work = await newDir();
    const spec = join(work, "reads.yaml");
    await writeFile(
      spec,
      stringify({
        benchspec: 1,
        name: "reads",
        targets: { store: externalS3Target("copies") },
        workloads: [
          { name: "get", target: "store", op: "get", size: "256KiB", objects: 100, concurrency: 4 },
        ],
      }),
    );
    const dir = join(work, "c");
    const compiledSpec = await execa("node", [BIN, "compile", spec, "--target", "shell", "-o", dir], {
      all: true,
    });
    expect(compiledSpec.exitCode, compiledSpec.all).toBe(0);
    const barrier = join(work, "barrier");
    await mkdir(barrier);
    const env = { ...s3Env(server), BENCHSPEC_BARRIER: barrier, BENCHSPEC_START_DELAY: "0.3" };
    const results = await Promise.all(
      [0, 1].map((i) => copy(join(dir, "benchspec.sh"), join(work, `c${i}`), i, env)),
    );
    expect(results.map((r) => r.exitCode)).toEqual([0, 0]);
    // The instant both agreed on: the later arrival at slot 0, plus the delay.
    const arrivals = await Promise.all(
      ["0", "1"].map(
        async (i) => Number((await readFile(join(barrier, "slot.0", i), "utf8")).split(" ")[0]) / 1000,
      ),
    );
    const instant = Math.max(...arrivals) + 300;
    for (const i of [0, 1]) {
      const [row] = await lines<ResultRow>(join(work, `c${i}`, "results.ndjson"));
      expect(row!.ok, row!.error).toBe(true);
      // The row's start is its timed pool's release: at the instant, after the 100 uploads it needed.
      expect(Math.abs(Date.parse(row!.start) - instant), `copy ${i}`).toBeLessThan(50);
    }
  });
});

describe("a copy whose other copy never comes", () => {
  it("fails the repetition it waited at for the barrier's timeout, naming the copy, and never waits for it again", async () => {
    const work = await newDir();
    const dir = await compiled(work);
    const barrier = join(work, "barrier");
    await mkdir(barrier);
    const started = Date.now();
    const result = await copy(join(dir, "benchspec.sh"), join(work, "out"), 0, {
      BENCHSPEC_BARRIER: barrier,
      BENCHSPEC_BARRIER_TIMEOUT: "2",
      BENCHSPEC_START_DELAY: "0.1",
    });
    expect(result.exitCode).toBe(1);
    const rows = await lines<ResultRow>(join(work, "out", "results.ndjson"));
    expect(rows.map((row) => row.ok)).toEqual([false, true, true, true]);
    expect(rows[0]!.error).toMatch(/copy 1 did not reach start slot 0 within 2 s .*taken as gone/);
    // One timeout, not one per repetition: the dd and fio repetitions take well under 8 s.
    expect(Date.now() - started).toBeLessThan(2000 + 8000);
  });
});

describe("the script as a copy with an epoch and a period", () => {
  it("refuses every repetition whose start instant has passed, saying by how much", async () => {
    const work = await newDir();
    const dir = await compiled(work);
    // Slot K at epoch + K × 1 s: an epoch an hour ago has every slot in the past.
    const epoch = String(Math.floor(Date.now() / 1000) - 3600);
    const result = await copy(join(dir, "benchspec.sh"), join(work, "out"), 0, {
      BENCHSPEC_EPOCH: epoch,
      BENCHSPEC_PERIOD: "1",
    });
    expect(result.exitCode).toBe(1);
    const rows = await lines<ResultRow>(join(work, "out", "results.ndjson"));
    expect(rows).toHaveLength(4);
    for (const row of rows) {
      expect(row.ok).toBe(false);
      expect(row.error).toMatch(/missed its start instant \(slot \d\) by \d+ ms.*raise BENCHSPEC_PERIOD/);
      expect(row.bytes).toBe(0);
    }
  });

  it("says what is missing when the copies have no way to agree", async () => {
    const work = await newDir();
    const dir = await compiled(work);
    const result = await copy(join(dir, "benchspec.sh"), join(work, "out"), 3, {});
    expect(result.exitCode).toBe(1);
    expect(await readFile(join(work, "out", "log"), "utf8")).toContain("BENCHSPEC_HOST_INDEX must be 0…1");
    const none = await copy(join(dir, "benchspec.sh"), join(work, "none"), 0, {});
    expect(await readFile(join(work, "none", "log"), "utf8")).toMatch(
      /BENCHSPEC_BARRIER=DIR .* or BENCHSPEC_EPOCH/,
    );
    expect(none.exitCode).toBe(1);
  });
});

describe("the script's latency bins", () => {
  /** curl.sh's bs_latency_bins over ops records (worker, start µs, end µs, bytes, ok). */
  async function scriptBins(micros: readonly number[]): Promise<Record<string, number>> {
    const library = (
      await Promise.all(
        ["src/engines/load/curl.sh", "src/compile/shell/runtime.sh"].map((f) =>
          readFile(join(ROOT, f), "utf8"),
        ),
      )
    ).join("\n");
    const fn = ["bs_latency_bins", "bs_bins_cut", "bs_bins_json"]
      .map((name) => new RegExp(`^${name}\\(\\) \\{\\n[\\s\\S]*?\\n\\}\\n`, "m").exec(library)![0])
      .join("\n");
    const records = micros.map(
      (us, i) => `0 ${1_700_000_000_000_000 + i} ${1_700_000_000_000_000 + i + us} 10 1`,
    );
    // A failed op's time is not a latency.
    records.push("0 1 999999 10 0");
    const { stdout } = await execa("bash", ["-c", `${fn}\nbs_latency_bins`], {
      input: `${records.join("\n")}\n`,
    });
    return JSON.parse(stdout) as Record<string, number>;
  }

  it("cuts each latency to its HdrHistogram bucket: pooled, the same histogram as the values themselves", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 3_600_000_000 }), { minLength: 1, maxLength: 300 }),
        async (micros) => {
          const bins = await scriptBins(micros);
          const exact = build({
            numberOfSignificantValueDigits: 3,
            lowestDiscernibleValue: 1,
            highestTrackableValue: 3.6e12,
            bitBucketSize: 64,
            autoResize: true,
            useWebAssembly: false,
          });
          const expected = new Map<number, number>();
          for (const us of micros) {
            exact.recordValue(us * 1000);
            // hdr-histogram-js has it, its typings do not.
            const low = (
              exact as unknown as { lowestEquivalentValue(v: number): number }
            ).lowestEquivalentValue(us * 1000);
            expected.set(low, (expected.get(low) ?? 0) + 1);
          }
          expect(new Map(Object.entries(bins).map(([ns, n]) => [Number(ns), n]))).toEqual(expected);
          const fromBins = mergeHistograms([encodeBins(Object.entries(bins).map(([ns, n]) => [+ns, n]))]);
          expect(latencyOfHistogram(fromBins)).toEqual(latencyOfHistogram(exact));
        },
      ),
      { numRuns: 40 },
    );
  });
});

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);
