/**
 * Sizes drawn from a distribution, run for real: S3 objects on a launched MinIO (PUT, then GET and HEAD,
 * which check each object's length against the size drawn for its index), IPFS adds and cats on a
 * launched Kubo, and fio's block sizes through bssplit on a directory. The rows' size classes are the
 * draws counted by hand, and add up to the rows.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ResultRow } from "../../src/rows/row.js";
import { sizeAt, sizeClassOf, type SizeDistribution } from "../../src/rows/sizes.js";
import type { RunSummary } from "../../src/results/summary.js";
import { runCli } from "../support/cli.js";
import { readJson, rowsOf, tempDirs, writeSpec } from "./support.js";

const temps = tempDirs("benchspec-sizes-");
afterAll(() => temps.removeAll());

const KiB = 1024;
const MiB = 2 ** 20;

/** The classes a run of `objects` draws must count, by hand from the draws. */
function expectedClasses(d: SizeDistribution, objects: number) {
  const classes = new Map<string, { ops: number; bytes: number }>();
  for (let i = 0; i < objects; i++) {
    const size = sizeAt(d, i);
    const key = String(sizeClassOf(d, size));
    const part = classes.get(key) ?? { ops: 0, bytes: 0 };
    part.ops += 1;
    part.bytes += size;
    classes.set(key, part);
  }
  return Object.fromEntries([...classes].sort(([a], [b]) => Number(a) - Number(b)));
}

const classesOf = (row: ResultRow) =>
  Object.fromEntries(
    Object.entries(row.bySize ?? {})
      .sort(([a], [b]) => Number(a) - Number(b))
      .map(([key, part]) => [key, { ops: part.ops, bytes: part.bytes }]),
  );

async function run(spec: object) {
  const dir = await temps.make();
  const file = await writeSpec(dir, spec);
  const out = join(dir, "run");
  const result = await runCli(["run", file, "--out", out]);
  expect(result.code, result.stderr).toBe(0);
  return { out, rows: await rowsOf(out), summary: await readJson<RunSummary>(join(out, "summary.json")) };
}

describe("sizes drawn from a distribution, run for real", () => {
  it("S3 on MinIO: weighted buckets and a seeded lognormal, each object its drawn size, counted per class", async () => {
    const objects = 120;
    const buckets: SizeDistribution = {
      buckets: [
        { size: 4 * KiB, percent: 70 },
        { size: 256 * KiB, percent: 25 },
        { size: 2 * MiB, percent: 5 },
      ],
    };
    const lognormal: SizeDistribution = {
      lognormal: { median: 64 * KiB, spread: 3, min: 4 * KiB, max: 4 * MiB },
      seed: 9,
    };
    const { rows, summary, out } = await run({
      name: "sizes-s3",
      targets: { store: { kind: "s3", launch: "minio" } },
      workloads: [
        {
          name: "buckets",
          target: "store",
          op: ["put", "get", "stat"],
          size: { "4KiB": "70%", "256KiB": "25%", "2MiB": "5%" },
          objects,
          concurrency: 8,
          repeat: 2,
        },
        {
          name: "lognormal",
          target: "store",
          op: "get",
          size: { lognormal: { median: "64KiB", spread: 3, min: "4KiB", max: "4MiB" }, seed: 9 },
          multipart: { partSize: "5MiB", queue: 2 },
          objects,
          concurrency: 8,
        },
      ],
    });
    expect(rows.every((r) => r.ok)).toBe(true);
    for (const row of rows) {
      const d = row.workload === "buckets" ? buckets : lognormal;
      const expected = expectedClasses(d, objects);
      if (row.op === "stat") {
        // HEAD moves no payload; each HEAD still checked its object's length against its draw.
        expect(Object.fromEntries(Object.entries(classesOf(row)).map(([k, p]) => [k, p.ops]))).toEqual(
          Object.fromEntries(Object.entries(expected).map(([k, p]) => [k, p.ops])),
        );
        continue;
      }
      expect(classesOf(row), row.case).toEqual(expected);
      expect(row.bytes).toBe(Object.values(expected).reduce((sum, p) => sum + p.bytes, 0));
      for (const part of Object.values(row.bySize!)) expect(part.latency!.p99).toBeGreaterThan(0);
    }
    // Another seed draws other sizes.
    expect(expectedClasses({ ...lognormal, seed: 10 }, objects)).not.toEqual(
      expectedClasses(lognormal, objects),
    );
    // summary.json: per class, both repetitions' operations, in size order.
    const put = summary.cases.find((c) => c.id === "buckets.store.put")!;
    expect(put.bySize!.map((p) => p.size)).toEqual([4 * KiB, 256 * KiB, 2 * MiB]);
    expect(put.bySize!.map((p) => p.ops)).toEqual(
      Object.values(expectedClasses(buckets, objects)).map((p) => 2 * p.ops),
    );
    const report = await readFile(join(out, "report.html"), "utf8");
    expect(report).toContain("buckets: latency per size class");
    expect(report).toContain("lognormal: latency per size class");
  }, 240_000);

  it("IPFS on Kubo: uniform sizes added and read back, counted per power-of-two class", async () => {
    const objects = 24;
    const uniform: SizeDistribution = { uniform: { min: 1 * KiB, max: 300 * KiB } };
    const { rows } = await run({
      name: "sizes-ipfs",
      targets: { node: { kind: "ipfs", launch: "kubo" } },
      workloads: [
        { name: "files", target: "node", op: ["put", "get"], size: { uniform: ["1KiB", "300KiB"] }, objects },
      ],
    });
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.ok, row.error).toBe(true);
      expect(classesOf(row)).toEqual(expectedClasses(uniform, objects));
    }
  }, 240_000);

  it("fio draws its block sizes from the shares (bssplit) and counts its I/Os", async () => {
    const dir = await temps.make();
    const { rows, out } = await run({
      name: "sizes-fio",
      targets: { scratch: { kind: "fs", path: dir } },
      workloads: [
        {
          name: "blocks",
          target: "scratch",
          op: "randwrite",
          size: "32MiB",
          bs: { "4KiB": "50%", "64KiB": "50%" },
          duration: "2s",
        },
      ],
    });
    const jobfile = await readFile(join(out, "fio", "blocks.fio"), "utf8");
    expect(jobfile).toContain("bssplit=4096/50:65536/50");
    const [row] = rows;
    expect(row!.ok).toBe(true);
    // The average I/O lies between the two sizes: fio used both (its I/Os counted, not bytes ÷ one bs).
    const average = row!.bytes / row!.ops;
    expect(average).toBeGreaterThan(4 * KiB);
    expect(average).toBeLessThan(64 * KiB);
    expect(row!.bytes % (4 * KiB)).toBe(0);
  }, 120_000);
});
