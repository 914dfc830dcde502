/**
 * Time series from the compiled script: a fio case with `sample` appends its points to BENCHSPEC_TIMESERIES
 * with benchspec run's definition (seriesFromLogs over fio's averaged logs, jobs and directions summed), and
 * the report of the script's rows reads them from timeseries.ndjson beside them; an S3 case stamps each
 * transfer as it ends and appends the series of its operations as run computes it.
 */
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MinioServer } from "../../src/targets/s3/minio-server.js";
import { compilePlan } from "../../src/compile/compile.js";
import { writeArtifacts } from "../../src/compile/output.js";
import { SHELL_SCRIPT_PATH } from "../../src/compile/shell/script.js";
import { VERSION } from "../../src/cli/context.js";
import { targetEnvVar } from "../../src/emit/shell-words.js";
import { seriesFromLogs } from "../../src/engines/fio/results.js";
import { loadInput } from "../../src/report/load.js";
import { ResultRowSchema, TimeseriesRowSchema, type ResultRow } from "../../src/rows/row.js";
import { externalS3Target, minioWithBucket, s3Env, tempDirs } from "../engines/support.js";
import { planOf } from "../support/spec.js";

const temps = tempDirs("benchspec-series-");
afterAll(() => temps.removeAll());

const SERIES_SPEC = {
  benchspec: 1,
  name: "shell-series",
  targets: { scratch: { kind: "fs" } },
  workloads: [
    {
      name: "timed",
      engine: "fio",
      op: "randrw",
      ioengine: "psync",
      size: "4MiB",
      bs: "4KiB",
      jobs: 2,
      duration: "1s",
      sample: "200ms",
      repeat: 2,
    },
  ],
};

const g9 = (value: number) => Number(value.toPrecision(9));

describe("a compiled fio case with sample", () => {
  it("appends run's time series to BENCHSPEC_TIMESERIES, and the report of the rows draws it", async () => {
    const plan = planOf(SERIES_SPEC);
    const { artifacts, leftOut } = await compilePlan(plan, ["fio", "shell"], VERSION);
    expect(leftOut).toEqual([]);
    const dir = await temps.make();
    const target = await temps.make();
    const logs = await temps.make();
    await writeArtifacts(dir, artifacts);
    const run = await execa(join(dir, SHELL_SCRIPT_PATH), [], {
      env: {
        [targetEnvVar("scratch")]: target,
        BENCHSPEC_TIMESERIES: join(dir, "timeseries.ndjson"),
        BENCHSPEC_LOG_DIR: logs,
      },
      reject: false,
      timeout: 120_000,
    });
    expect(run.exitCode, run.stderr).toBe(0);
    await writeFile(join(dir, "results.ndjson"), `${run.stdout}\n`);
    const rows = run.stdout.split("\n").map((line) => ResultRowSchema.parse(JSON.parse(line)));
    expect(rows).toHaveLength(2);
    const points = (await readFile(join(dir, "timeseries.ndjson"), "utf8"))
      .split("\n")
      .filter(Boolean)
      .map((line) => TimeseriesRowSchema.parse(JSON.parse(line)));

    const [c] = plan.cases;
    for (const repetition of [1, 2]) {
      // What benchspec run makes of the same logs (fio kept them under BENCHSPEC_LOG_DIR).
      const kept = join(logs, c!.id, `r${repetition}`);
      const files = (await readdir(kept)).filter((file) => /_(bw|iops)\.\d+\.log$/.test(file));
      expect(files).toHaveLength(4); // bw and iops of each of the 2 jobs
      const expected = seriesFromLogs(
        await Promise.all(
          files.map(async (file) => ({
            kind: file.includes("_bw.") ? ("bw" as const) : ("iops" as const),
            text: await readFile(join(kept, file), "utf8"),
          })),
        ),
        200,
      );
      const own = points.filter((p) => p.repetition === repetition);
      expect(own.length).toBeGreaterThanOrEqual(3);
      expect(own.every((p) => p.case === c!.id && p.warmup === false)).toBe(true);
      expect(own.map(({ t, throughput, iops }) => ({ t, throughput, iops }))).toEqual(
        expected.map(({ t, throughput, iops }) => ({ t: g9(t), throughput: g9(throughput), iops: g9(iops) })),
      );
    }

    const loaded = await loadInput(join(dir, "results.ndjson"));
    expect(loaded.planDerived).toBe(false);
    const drawn = loaded.series.filter((s) => s.case === c!.id);
    expect(drawn.length).toBeGreaterThan(0);
  }, 150_000);
});

describe("a compiled S3 case with sample", () => {
  let server: MinioServer;
  beforeAll(async () => {
    server = await minioWithBucket("series");
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("stamps each transfer as it ends and appends run's series of its operations", async () => {
    const plan = planOf({
      benchspec: 1,
      name: "s3-series",
      targets: { store: externalS3Target("series") },
      // One request in flight: each transfer ends before the next starts, so the bytes fill the window.
      workloads: [
        {
          name: "up",
          target: "store",
          op: "put",
          size: "256KiB",
          objects: 60,
          concurrency: 1,
          sample: "50ms",
          repeat: 2,
        },
      ],
    });
    const { artifacts, leftOut } = await compilePlan(plan, ["shell"], VERSION);
    expect(leftOut).toEqual([]);
    const dir = await temps.make();
    await writeArtifacts(dir, artifacts);
    const run = await execa(join(dir, SHELL_SCRIPT_PATH), [], {
      env: { ...s3Env(server), BENCHSPEC_TIMESERIES: join(dir, "timeseries.ndjson") },
      reject: false,
      timeout: 120_000,
    });
    expect(run.exitCode, run.stderr).toBe(0);
    const rows = run.stdout.split("\n").map((line) => ResultRowSchema.parse(JSON.parse(line)));
    const points = (await readFile(join(dir, "timeseries.ndjson"), "utf8"))
      .split("\n")
      .filter(Boolean)
      .map((line) => TimeseriesRowSchema.parse(JSON.parse(line)));
    for (const row of rows) {
      expect(row.ok, row.error).toBe(true);
      const own = points.filter((p) => p.repetition === row.repetition && !p.warmup);
      expect(own.length).toBeGreaterThanOrEqual(2);
      // Every operation's bytes and share of an operation, spread over its own time, inside the window.
      const steps = own.map((p, i) => p.t - (i === 0 ? 0 : own[i - 1]!.t));
      expect(own.reduce((sum, p, i) => sum + p.throughput * steps[i]!, 0) / row.bytes).toBeCloseTo(1, 4);
      expect(own.reduce((sum, p, i) => sum + p.iops * steps[i]!, 0) / row.ops).toBeCloseTo(1, 4);
      expect(own.at(-1)!.t).toBeCloseTo(row.seconds, 3);
      // Stamped as they ended: bytes in every full step (ends taken at curl's exit put them all at the end).
      for (const point of own.slice(0, -1)) expect(point.throughput, `t=${point.t}`).toBeGreaterThan(0);
    }
  }, 150_000);

  it("an autotuned case's series is its knee round's, as run's: the row's bytes over the row's seconds", async () => {
    const plan = planOf({
      benchspec: 1,
      name: "s3-tuned-series",
      targets: { store: externalS3Target("series") },
      workloads: [
        {
          name: "tuned",
          target: "store",
          op: "put",
          size: "256KiB",
          objects: 48,
          sample: "50ms",
          repeat: 1,
          autotune: { param: "concurrency", start: 1, factor: 2, max: 4, stopWhenGainBelow: "100%" },
        },
      ],
    });
    const { artifacts, leftOut } = await compilePlan(plan, ["shell"], VERSION);
    expect(leftOut).toEqual([]);
    // The series tells the knee round's window from the last round's only when their lengths differ: on a
    // busy machine they once came 7 ms apart, so the script runs again (at most 3 times) until they do.
    let dir = "";
    let row: ResultRow | undefined;
    for (let attempt = 1; attempt <= 3; attempt++) {
      dir = await temps.make();
      await writeArtifacts(dir, artifacts);
      const run = await execa(join(dir, SHELL_SCRIPT_PATH), [], {
        env: { ...s3Env(server), BENCHSPEC_TIMESERIES: join(dir, "timeseries.ndjson") },
        reject: false,
        timeout: 120_000,
      });
      expect(run.exitCode, run.stderr).toBe(0);
      [row] = run.stdout.split("\n").map((line) => ResultRowSchema.parse(JSON.parse(line)));
      if (Math.abs(row!.autotune!.rounds.at(-1)!.seconds - row!.seconds) > 0.01) break;
    }
    // Doubling the requests in flight does not double a loopback MinIO's rate on two cores: the rounds stop
    // at one that did not gain 100 %, and the knee is the round before it, not the last round run.
    const rounds = row!.autotune!.rounds;
    expect(Math.abs(rounds.at(-1)!.seconds - row!.seconds)).toBeGreaterThan(0.01);
    const knee = rounds.findIndex((r) => r.value === row!.autotune!.chosen);
    expect(knee).toBe(rounds.length - 2);
    const points = (await readFile(join(dir, "timeseries.ndjson"), "utf8"))
      .split("\n")
      .filter(Boolean)
      .map((line) => TimeseriesRowSchema.parse(JSON.parse(line)));
    const steps = points.map((p, i) => p.t - (i === 0 ? 0 : points[i - 1]!.t));
    expect(points.reduce((sum, p, i) => sum + p.throughput * steps[i]!, 0) / row!.bytes).toBeCloseTo(1, 4);
    // The knee's window, not the last round's (more requests in flight took another time).
    expect(points.at(-1)!.t).toBeCloseTo(row!.seconds, 3);
  }, 150_000);
});
