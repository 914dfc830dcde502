/**
 * The S3 engine through `benchspec run`, against real MinIO servers on loopback: the test's own MinIO
 * (launchMinio) as an "external" endpoint it can inspect, or the run's `launch: minio`. Every test starts
 * what it needs and stops it.
 */
import {
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  type S3Client,
} from "@aws-sdk/client-s3";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { makePayload } from "../../src/engines/load/payload.js";
import { launchMinio } from "../../src/targets/s3/minio-server.js";
import { decodeHistogram } from "../../src/rows/histogram.js";
import { ResultRowSchema, type ResultRow } from "../../src/rows/row.js";
import { runCli } from "../support/cli.js";
import { freePort } from "../../src/platform/ports.js";
import type { RunSummary } from "../../src/results/summary.js";
import type { Provenance } from "../../src/results/run-dir.js";
import {
  externalS3Target,
  filesUnder,
  getObject,
  listObjects,
  listUploads,
  processAlive,
  readJson,
  rowsOf,
  s3Client,
  sleep,
  s3Env,
  interruptAfter,
  startCli,
  tempDirs,
  waitFor,
  watchProcesses,
  withMinio,
  writeSpec,
  type Listed,
} from "./support.js";

const temps = tempDirs("benchspec-s3-test-");
afterAll(() => temps.removeAll());

const KiB = 1024;
const MiB = 1024 * KiB;

const plant = (client: S3Client, bucket: string, key: string, body: string) =>
  client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));

/** Every op the engine has, on small objects, and put/get of multipart objects (3 parts, the last one short). */
const allOps = {
  defaults: { repeat: 2 },
  workloads: [
    { name: "small", op: ["put", "get", "stat", "list", "delete"], size: "4KiB", objects: 8, concurrency: 3 },
    {
      name: "large",
      op: ["put", "get"],
      size: "11MiB",
      objects: 2,
      concurrency: 2,
      multipart: { partSize: "5MiB", queue: 2 },
    },
  ],
};
const SMALL = { size: 4 * KiB, objects: 8, concurrency: 3 };
const LARGE = { size: 11 * MiB, objects: 2 };
/** Cases that leave objects when kept (a delete case deletes its own). */
const KEPT_CASES = [
  "small.store.put",
  "small.store.get",
  "small.store.stat",
  "small.store.list",
  "large.store.put",
  "large.store.get",
];

function expectExactCounts(rows: ResultRow[]) {
  for (const row of rows) expect(() => ResultRowSchema.parse(row)).not.toThrow();
  expect(rows.map((r) => `${r.case}#${r.repetition}`).sort()).toEqual(
    [...KEPT_CASES, "small.store.delete"].flatMap((c) => [`${c}#1`, `${c}#2`]).sort(),
  );
  const expected: Record<string, { bytes: number; ops: number }> = {
    "small.store.put": { bytes: SMALL.objects * SMALL.size, ops: SMALL.objects },
    "small.store.get": { bytes: SMALL.objects * SMALL.size, ops: SMALL.objects },
    "small.store.stat": { bytes: 0, ops: SMALL.objects },
    // One full listing per worker.
    "small.store.list": { bytes: 0, ops: SMALL.concurrency },
    "small.store.delete": { bytes: 0, ops: SMALL.objects },
    "large.store.put": { bytes: LARGE.objects * LARGE.size, ops: LARGE.objects },
    "large.store.get": { bytes: LARGE.objects * LARGE.size, ops: LARGE.objects },
  };
  for (const row of rows) {
    expect({ case: row.case, ok: row.ok, error: row.error, bytes: row.bytes, ops: row.ops }).toEqual({
      case: row.case,
      ok: true,
      error: undefined,
      ...expected[row.case],
    });
    expect(row.latency?.p50, row.case).toBeGreaterThan(0);
    if (row.op === "get") expect(row.ttfb?.p50, row.case).toBeGreaterThan(0);
    if (row.bytes > 0) expect(row.throughput).toBeGreaterThan(0);
    // The headline numbers are the bytes and operations over the repetition's time, nothing else.
    expect(Math.abs(row.throughput * row.seconds - row.bytes), row.case).toBeLessThanOrEqual(
      1e-9 * row.bytes,
    );
    expect(Math.abs(row.iops * row.seconds - row.ops), row.case).toBeLessThanOrEqual(1e-9 * row.ops);
    expect(row.busyWindow, row.case).toBeDefined();
  }
}

/** The run id in keys `benchspec/<spec>/<runId>/<case>/…`. */
function runIdOf(objects: Listed[], spec: string): string {
  const ids = new Set(
    objects
      .map((o) => o.key.split("/"))
      .filter((parts) => parts[0] === "benchspec" && parts[1] === spec)
      .map((parts) => parts[2]!),
  );
  expect(ids.size).toBe(1);
  return [...ids][0]!;
}

const gzipRatio = (data: Buffer) => gzipSync(data).length / data.length;

describe("S3 engine: operations, byte and object counts, payloads", () => {
  it.each([1, 2])(
    "keep: true keeps exactly the run's objects under its prefix, with the bytes the payload generator makes (threads: %i)",
    async (threads) => {
      await withMinio(["kept"], async (server, client) => {
        const work = await temps.make();
        const spec = await writeSpec(work, {
          name: "s3ops",
          targets: { store: externalS3Target("kept", { keep: true }) },
          ...allOps,
          defaults: { ...allOps.defaults, threads },
        });
        const out = join(work, "run");
        const result = await runCli(["run", spec, "--out", out], s3Env(server));
        expect(result.stderr).not.toContain("failed");
        expect(result.code).toBe(0);
        expectExactCounts(rowsOf(out));
        // Every case spread its workers over the threads asked for (each case has at least 2 in flight).
        for (const row of rowsOf(out)) expect(row.client?.threads, row.case).toBe(threads);

        const objects = await listObjects(client, "kept");
        const runId = runIdOf(objects, "s3ops");
        expect((await readJson<Provenance>(join(out, "provenance.json"))).runId).toBe(runId);
        const prefix = `benchspec/s3ops/${runId}/`;
        // Exactly the keys of every repetition of every case, nothing else (a delete case deletes its own).
        const expectedKeys = KEPT_CASES.flatMap((c) => {
          const n = c.startsWith("small") ? SMALL.objects : LARGE.objects;
          return ["r1", "r2"].flatMap((rep) =>
            Array.from({ length: n }, (_, i) => `${prefix}${c}/${rep}/o${i}`),
          );
        });
        expect(objects.map((o) => o.key).sort()).toEqual(expectedKeys.sort());
        for (const o of objects) {
          const large = o.key.includes("/large.");
          expect(o.size, o.key).toBe(large ? LARGE.size : SMALL.size);
          // A multipart upload's ETag is "<md5 of the part md5s>-<parts>": 11 MiB in 5 MiB parts is 3 parts.
          expect(o.etag, o.key).toMatch(large ? /-3"$/ : /^"[0-9a-f]{32}"$/);
        }

        // Read back what the run wrote: each object is the payload of (run id, seed), whole or in parts.
        const samples = [
          { key: "small.store.put/r1/o0", size: SMALL.size },
          { key: "small.store.get/r2/o7", size: SMALL.size },
          { key: "large.store.put/r2/o1", size: LARGE.size },
          { key: "large.store.get/r1/o0", size: LARGE.size },
        ];
        const bodies: Buffer[] = [];
        for (const { key, size } of samples) {
          const body = await getObject(client, "kept", prefix + key);
          const expected = makePayload(`${runId}|${key}`, size, "random").slice(0, size);
          expect(body.length, key).toBe(size);
          expect(body.equals(expected), `${key} equals its regenerated payload`).toBe(true);
          expect(gzipRatio(body), `${key} is incompressible`).toBeGreaterThan(0.99);
          bodies.push(body);
        }
        // Unique per object and per repetition.
        expect(bodies[0]!.equals(bodies[1]!)).toBe(false);
        expect(bodies[2]!.subarray(0, MiB).equals(bodies[3]!.subarray(0, MiB))).toBe(false);
        expect(await listUploads(client, "kept")).toEqual([]);
      });
    },
    90_000,
  );

  it("time-based, over two threads: the threads share one deadline and one list, every operation is counted once", async () => {
    await withMinio(["timed"], async (server, client) => {
      const work = await temps.make();
      const size = 16 * KiB;
      const objects = 40;
      const spec = await writeSpec(work, {
        name: "timed",
        targets: { store: externalS3Target("timed", { keep: true }) },
        workloads: [
          {
            name: "t",
            op: "put",
            size: "16KiB",
            objects,
            concurrency: 4,
            threads: [1, 2],
            duration: "2s",
            sample: "500ms",
          },
        ],
      });
      const out = join(work, "run");
      const result = await runCli(["run", spec, "--out", out], s3Env(server));
      expect(result.code, result.stderr).toBe(0);
      const rows = rowsOf(out);
      expect(rows.map((r) => r.client?.threads).sort()).toEqual([1, 2]);
      const listed = await listObjects(client, "timed");
      for (const row of rows) {
        expect(row.ok, row.error).toBe(true);
        expect(row.bytes).toBe(row.ops * size);
        // Every operation's latency is in the row's histogram, whichever thread timed it.
        expect(decodeHistogram(row.histograms!.latency!).totalCount).toBe(row.ops);
        // It ran for the duration (not one pass over the list, not forever), in both threads' timeline.
        expect(row.seconds).toBeGreaterThanOrEqual(1.5);
        expect(row.seconds).toBeLessThan(30);
        const keys = listed.filter((o) => o.key.includes(`/${row.case}/`));
        // Passes over the list overwrite the same keys: never more than `objects` of them, all complete.
        expect(keys.length).toBe(Math.min(objects, row.ops));
        for (const o of keys) expect(o.size).toBe(size);
      }
    });
  }, 90_000);

  it("without keep, the bucket holds exactly what it held before: planted objects and foreign uploads survive, the run's uploads are aborted", async () => {
    await withMinio(["bench"], async (server, client) => {
      await plant(client, "bench", "precious.txt", "precious");
      // Under benchspec/ but not under this run's prefix: someone else's, never touched.
      await plant(client, "bench", "benchspec/s3ops/other-run/small.store.put/r1/o0", "another run's object");
      const foreign = await client.send(
        new CreateMultipartUploadCommand({ Bucket: "bench", Key: "benchspec/s3ops/other-run/upload" }),
      );
      const before = await listObjects(client, "bench");

      const work = await temps.make();
      const spec = await writeSpec(work, {
        name: "s3ops",
        targets: { store: externalS3Target("bench") },
        ...allOps,
      });
      const out = join(work, "run");
      const running = runCli(["run", spec, "--out", out], s3Env(server));
      // While the run goes on its objects exist under its prefix. An incomplete upload under the prefix of a
      // case still to come stands for one whose CreateMultipartUpload answer was lost (Ctrl-C, a crash):
      // the engine never saw its UploadId, and cleanup must still abort it.
      let runId: string | undefined;
      await waitFor(
        async () => {
          const seen = (await listObjects(client, "bench", "benchspec/s3ops/")).filter(
            (o) => !o.key.includes("/other-run/"),
          );
          if (seen.length > 0) runId = seen[0]!.key.split("/")[2];
          return runId !== undefined;
        },
        30_000,
        "the run's first object",
      );
      const orphanKey = `benchspec/s3ops/${runId}/large.store.get/r2/o0`;
      await client.send(new CreateMultipartUploadCommand({ Bucket: "bench", Key: orphanKey }));
      expect((await listUploads(client, "bench")).map((u) => u.key)).toContain(orphanKey);
      expect(
        rowsOf(out).filter((r) => r.case.startsWith("large.")),
        "planted before its case ran",
      ).toEqual([]);
      const result = await running;
      expect(result.stderr).not.toContain("failed");
      expect(result.code).toBe(0);
      expectExactCounts(rowsOf(out));

      expect(await listObjects(client, "bench")).toEqual(before);
      expect((await getObject(client, "bench", "precious.txt")).toString()).toBe("precious");
      expect(await listUploads(client, "bench")).toEqual([
        { key: "benchspec/s3ops/other-run/upload", uploadId: foreign.UploadId },
      ]);
    });
  }, 90_000);

  it("op mixed: gets, stats, puts and deletes interleaved in one load, counted per operation; the bucket as before", async () => {
    await withMinio(["bench"], async (server, client) => {
      await plant(client, "bench", "precious.txt", "precious");
      const before = await listObjects(client, "bench");
      const work = await temps.make();
      const spec = await writeSpec(work, {
        name: "s3mixed",
        targets: { store: externalS3Target("bench") },
        workloads: [
          {
            name: "mix",
            op: "mixed",
            size: "8KiB",
            objects: 20,
            concurrency: 4,
            repeat: 2,
            mix: { get: "50%", stat: "20%", put: "20%", delete: "10%" },
          },
        ],
      });
      const out = join(work, "run");
      const result = await runCli(["run", spec, "--out", out], s3Env(server));
      expect(result.code, result.stderr).toBe(0);
      const rows = rowsOf(out);
      expect(rows).toHaveLength(2);
      for (const row of rows) {
        expect(() => ResultRowSchema.parse(row)).not.toThrow();
        expect(row).toMatchObject({ ok: true, ops: 20, bytes: (10 + 4) * 8 * KiB });
        expect(
          Object.fromEntries(Object.entries(row.byOp!).map(([op, o]) => [op, [o.ops, o.bytes, o.errors]])),
        ).toEqual({
          GetObject: [10, 10 * 8 * KiB, 0],
          HeadObject: [4, 0, 0],
          PutObject: [4, 4 * 8 * KiB, 0],
          DeleteObject: [2, 0, 0],
        });
        for (const op of Object.values(row.byOp!)) {
          expect(op.latency!.p50).toBeGreaterThan(0);
          expect(decodeHistogram(op.histograms!.latency!).totalCount).toBe(op.ops);
        }
      }
      expect(await listObjects(client, "bench")).toEqual(before);
    });
  }, 60_000);

  it("autotune ramps the concurrency 1, 2, 4, … and records every round and the chosen value", async () => {
    const work = await temps.make();
    const objects = 24;
    const size = 256 * KiB;
    const spec = await writeSpec(work, {
      name: "knee",
      targets: { store: { kind: "s3", launch: "minio" } },
      workloads: [
        {
          name: "tune",
          op: "put",
          size: "256KiB",
          objects,
          repeat: 1,
          autotune: { param: "concurrency", start: 1, factor: 2, max: 8, stopWhenGainBelow: "5%" },
        },
      ],
    });
    const out = join(work, "run");
    const result = await runCli(["run", spec, "--out", out]);
    expect(result.code).toBe(0);
    const [row, ...more] = rowsOf(out);
    expect(more).toEqual([]);
    expect(row).toMatchObject({ ok: true, case: "tune.store.put", bytes: objects * size, ops: objects });
    const tune = row!.autotune!;
    expect(tune.param).toBe("concurrency");
    const rounds = tune.rounds;
    expect(rounds.length).toBeGreaterThanOrEqual(2);
    expect(rounds.map((r) => r.value)).toEqual([1, 2, 4, 8].slice(0, rounds.length));
    for (const round of rounds) {
      // Every round moves the whole object list once, with new data (the keys are overwritten).
      expect(round.bytes).toBe(objects * size);
      expect(round.seconds).toBeGreaterThan(0);
      expect(round.throughput).toBeGreaterThan(0);
    }
    // The ramp went on while each round gained ≥ 5% and stopped at the first that did not (or at max).
    const gain = (i: number) => rounds[i]!.throughput / rounds[i - 1]!.throughput - 1;
    for (let i = 1; i < rounds.length - 1; i++) expect(gain(i)).toBeGreaterThanOrEqual(0.05);
    const stalled = gain(rounds.length - 1) < 0.05;
    if (rounds.length < 4) expect(stalled).toBe(true);
    // The knee: the last round that still gained.
    const chosen = stalled ? rounds.at(-2)! : rounds.at(-1)!;
    expect(tune.chosen).toBe(chosen.value);
    expect(row!.throughput).toBe(chosen.throughput);
  }, 90_000);
});

describe("S3 engine: failures and interruptions", () => {
  it("a server killed mid-run: that case's repetitions are recorded errors, earlier cases intact, non-zero exit, no hang", async () => {
    const server = await launchMinio();
    const client = s3Client(server);
    try {
      await client.send(new CreateBucketCommand({ Bucket: "bench" }));
      const work = await temps.make();
      const spec = await writeSpec(work, {
        name: "dies",
        targets: { store: externalS3Target("bench") },
        defaults: { size: "64KiB", concurrency: 4, repeat: 2 },
        workloads: [
          { name: "first", op: "put", objects: 8 },
          { name: "long", op: "put", objects: 400 },
          { name: "after", op: "get", objects: 4 },
        ],
      });
      const out = join(work, "run");
      const running = runCli(["run", spec, "--out", out], s3Env(server));
      // Kill the server once the long case is writing.
      await waitFor(
        async () => (await listObjects(client, "bench")).some((o) => o.key.includes("/long.store.put/")),
        30_000,
        "the long case",
      );
      await server.stop();
      const killed = Date.now();
      const result = await running;
      expect(Date.now() - killed).toBeLessThan(60_000);
      expect(result.code).toBe(1);

      const rows = rowsOf(out);
      const of = (c: string) => rows.filter((r) => r.case === c);
      expect(of("first.store.put")).toHaveLength(2);
      for (const row of of("first.store.put"))
        expect(row).toMatchObject({ ok: true, bytes: 8 * 64 * KiB, ops: 8 });
      // The repetition the kill hit and everything after it: recorded, failed, with the reason.
      for (const c of ["long.store.put", "after.store.get"]) {
        expect(
          of(c).map((r) => r.repetition),
          c,
        ).toEqual([1, 2]);
        for (const row of of(c)) {
          expect(row.ok, `${c}#${row.repetition}`).toBe(false);
          expect(row.error, `${c}#${row.repetition}`).toMatch(
            /ECONNREFUSED|ECONNRESET|socket hang up|EPIPE|HTTP 503|closed the connection/,
          );
        }
      }
      expect(result.stderr).toMatch(/failed: long\.store\.put: 2 of 2 repetitions \(.*ECONNREFUSED/);
      expect(result.stderr).toContain("failed: after.store.get");
      const summary = await readJson<RunSummary>(join(out, "summary.json"));
      expect(summary.failedCases.sort()).toEqual(["after.store.get", "long.store.put"]);
      expect((await readJson<{ status: string }>(join(out, "run.json"))).status).toBe("complete");
    } finally {
      client.destroy();
      await server.stop();
    }
  }, 90_000);

  it("a server that freezes mid-run: its requests time out, the target's later cases fail at once, no hang", async () => {
    await withMinio(["bench"], async (server, client) => {
      const work = await temps.make();
      const spec = await writeSpec(work, {
        name: "freezes",
        targets: { store: externalS3Target("bench") },
        defaults: { size: "256KiB", concurrency: 2, repeat: 2 },
        workloads: [
          { name: "long", op: "put", objects: 2000 },
          { name: "after", op: ["get", "stat"], objects: 4 },
        ],
      });
      const out = join(work, "run");
      // In a process of its own: the idle limit is read when the HTTP client is loaded.
      const running = startCli(["run", spec, "--out", out], {
        ...s3Env(server),
        BENCHSPEC_IDLE_TIMEOUT_MS: "1500",
      });
      await waitFor(
        async () => (await listObjects(client, "bench")).some((o) => o.key.includes("/long.store.put/")),
        30_000,
        "the long case",
      );
      process.kill(-server.pid, "SIGSTOP"); // alive, connected, and silent
      const frozen = Date.now();
      const result = await running;
      process.kill(-server.pid, "SIGCONT");
      expect(Date.now() - frozen).toBeLessThan(45_000);
      expect(result.exitCode).toBe(1);
      const rows = rowsOf(out);
      const of = (c: string) => rows.filter((r) => r.case === c);
      expect(of("long.store.put")[0]!.error).toMatch(/no bytes from the server for 1\.5 s/);
      for (const c of ["after.store.get", "after.store.stat"]) {
        expect(
          of(c).map((r) => [r.repetition, r.ok]),
          c,
        ).toEqual([
          [1, false],
          [2, false],
        ]);
        for (const row of of(c))
          expect(row.error).toBe("not run: target store stopped answering during long.store.put");
      }
    });
  }, 90_000);

  it("a store frozen before the run: the bucket check gives up once, naming its limit; Ctrl-C during it ends the run at once", async () => {
    await withMinio(["bench"], async (server) => {
      const work = await temps.make();
      const spec = await writeSpec(work, {
        name: "frozen",
        targets: { store: externalS3Target("bench") },
        defaults: { size: "64KiB", objects: 2 },
        workloads: [
          { name: "first", op: "put" },
          { name: "second", op: "get" },
        ],
      });
      process.kill(-server.pid, "SIGSTOP"); // accepts connections (the kernel does), answers nothing
      try {
        const started = Date.now();
        const result = await startCli(["run", spec, "--out", join(work, "run")], {
          ...s3Env(server),
          BENCHSPEC_SETUP_CHECK_MS: "2000",
        });
        // Once for the run (2 s), not once per case, and not the store's 60 s idle limit.
        expect(Date.now() - started).toBeLessThan(15_000);
        expect(result.exitCode).toBe(1);
        const rows = rowsOf(join(work, "run"));
        expect(rows.map((r) => [r.case, r.ok])).toEqual([
          ["first.store.put", false],
          ["second.store.get", false],
        ]);
        expect(rows[0]!.error).toMatch(/bucket "bench" at .*: no answer within 2 s/);
        expect(rows[1]!.error).toMatch(
          /no answer within 2 s.*found preparing case first\.store\.put; not tried again/,
        );

        const { ended, tookMs } = await interruptAfter(
          startCli(["run", spec, "--out", join(work, "run2")], s3Env(server)),
          join(work, "run2"),
          500,
        );
        expect(tookMs).toBeLessThan(5_000);
        expect(ended.exitCode, ended.stderr).toBe(130);
        // Cut off by Ctrl-C, the target was not judged: nothing recorded, --resume tries it again.
        expect(rowsOf(join(work, "run2"))).toEqual([]);
      } finally {
        process.kill(-server.pid, "SIGCONT");
      }
    });
  }, 90_000);

  it("Ctrl-C during a case on a launched MinIO: exit 130, the rows so far kept, the server and its data gone", async () => {
    const work = await temps.make();
    const spec = await writeSpec(work, {
      name: "ctrlc",
      targets: { store: { kind: "s3", launch: "minio" } },
      defaults: { size: "64KiB", concurrency: 4 },
      workloads: [
        { name: "first", op: "put", objects: 4, repeat: 1 },
        { name: "long", op: "put", objects: 1000, repeat: 3 },
      ],
    });
    const out = join(work, "run");
    const child = startCli(["run", spec, "--out", out]);
    const watch = watchProcesses(child.pid!);
    await waitFor(() => rowsOf(out).length >= 1, 30_000, "the first case's row");
    await sleep(700);
    const minio = watch
      .seen()
      .filter((p) => / server /.test(p.cmdline) && p.cmdline.includes("benchspec-minio-"));
    expect(minio.map((p) => processAlive(p.pid))).toEqual([true]);
    const dataDir = / server (\S+)/.exec(minio[0]!.cmdline)![1]!;
    expect(existsSync(dataDir)).toBe(true);
    child.kill("SIGINT");
    const result = await child;
    const seen = watch.stop();
    expect(result.exitCode).toBe(130);
    expect(result.stderr).toContain("interrupting");
    expect(result.stderr).toContain(`benchspec run --resume ${out}`);

    // Nothing the run started outlives it; the launched server's data dir is removed.
    expect(seen.filter((p) => processAlive(p.pid))).toEqual([]);
    expect(existsSync(dataDir)).toBe(false);
    const rows = rowsOf(out);
    expect(rows[0]).toMatchObject({ case: "first.store.put", ok: true, bytes: 4 * 64 * KiB });
    // Interrupted in the long case: its later repetitions were never run, and no half-measured row was kept.
    expect(rows.length).toBeLessThan(4);
    expect(rows.filter((r) => !r.ok)).toEqual([]);
    expect((await readJson<{ status: string }>(join(out, "run.json"))).status).toBe("partial");
  }, 90_000);

  it("Ctrl-C during multipart uploads to an external store: nothing of the run remains (or clean removes it), no incomplete upload, the planted object survives", async () => {
    await withMinio(["bench"], async (server, client) => {
      await plant(client, "bench", "precious.txt", "precious");
      const work = await temps.make();
      const spec = await writeSpec(work, {
        name: "ctrlc",
        targets: { store: externalS3Target("bench") },
        workloads: [
          {
            name: "up",
            op: "put",
            size: "16MiB",
            objects: 8,
            concurrency: 3,
            multipart: { partSize: "5MiB", queue: 2 },
            repeat: 3,
          },
        ],
      });
      const out = join(work, "run");
      const child = startCli(["run", spec, "--out", out], s3Env(server));
      // Interrupt once objects of the run are complete and more uploads are in flight.
      await waitFor(
        async () =>
          (await listObjects(client, "bench", "benchspec/")).length > 0 &&
          (await listUploads(client, "bench")).length > 0,
        30_000,
        "complete objects and uploads in flight",
      );
      child.kill("SIGINT");
      const result = await child;
      expect(result.exitCode).toBe(130);
      // Cleanup after Ctrl-C is bounded (5 s after it): a CreateMultipartUpload the interrupt cut off that a
      // loaded server completes later still stays — the run says so, and clean removes it.
      await sleep(2000);
      if ((await listUploads(client, "bench")).length > 0) {
        expect(result.stderr).toContain(`benchspec clean ${out}`);
        const cleaned = await runCli(["clean", out], s3Env(server));
        expect(cleaned.code, cleaned.stderr).toBe(0);
      }
      expect(await listUploads(client, "bench")).toEqual([]);
      expect((await listObjects(client, "bench")).map((o) => o.key)).toEqual(["precious.txt"]);
      expect((await getObject(client, "bench", "precious.txt")).toString()).toBe("precious");
      expect((await readJson<{ status: string }>(join(out, "run.json"))).status).toBe("partial");
    });
  }, 90_000);
});

describe("S3 engine: secrets", () => {
  it("credentials in the endpoint URL are warned about and shown or stored nowhere; the URL still connects", async () => {
    await withMinio(["bench"], async (server) => {
      const work = await temps.make();
      const sentinel = `SENTINEL${randomBytes(8).toString("hex")}`;
      const endpoint = server.endpoint.replace("://", `://user:${sentinel}@`);
      const spec = await writeSpec(work, {
        name: "userinfo",
        targets: { store: externalS3Target("bench", { endpoint }) },
        workloads: [{ name: "small", op: ["put", "get"], size: "4KiB", objects: 4, repeat: 1 }],
      });
      const out = join(work, "run");
      const compiled = join(work, "compiled");
      const validated = await startCli(["validate", spec]);
      expect(validated.stderr).toMatch(
        /targets\.store\.endpoint: warning: endpoint holds credentials.*\[literal-secret\]/,
      );
      const result = await startCli(["run", spec, "--out", out], s3Env(server));
      expect(result.exitCode, result.stderr).toBe(0);
      expect(rowsOf(out).every((r) => r.ok)).toBe(true);
      const compile = await startCli(["compile", spec, "--out", compiled]);
      expect(compile.exitCode).toBe(0);
      for (const output of [validated, result, compile])
        expect(output.stdout + output.stderr).not.toContain(sentinel);
      // spec.yaml is the user's spec as run (what --resume runs), credentials and all; nothing else has them.
      const files = [...(await filesUnder(out)), ...(await filesUnder(compiled))].filter(
        (file) => file !== join(out, "spec.yaml"),
      );
      expect(files).toContain(join(out, "report.html"));
      for (const file of files) expect((await readFile(file)).includes(sentinel), file).toBe(false);
      const provenance = await readJson<Provenance>(join(out, "provenance.json"));
      expect(provenance.targets.store!.location).toBe(server.endpoint.replace("://", "://***@"));
      // The script asks for the endpoint instead of carrying a redacted one that would not connect.
      expect(await readFile(join(compiled, "benchspec.sh"), "utf8")).toContain(
        "the spec'\\''s endpoint holds credentials and is not copied into this script; set BENCHSPEC_TARGET_store",
      );
    });
  }, 90_000);

  it("an unusable external bucket says why and what to do: wrong keys, no such bucket, nothing listening", async () => {
    await withMinio(["bench"], async (server) => {
      const work = await temps.make();
      const failure = async (target: object, env: Record<string, string>) => {
        const spec = await writeSpec(work, {
          name: "unusable",
          targets: { store: target },
          workloads: [{ name: "small", op: "put", size: "4KiB", objects: 1, repeat: 1 }],
        });
        const result = await startCli(
          ["run", spec, "--out", join(work, randomBytes(4).toString("hex"))],
          env,
        );
        expect(result.exitCode).toBe(1);
        return result.stderr;
      };
      const at = `bucket "bench" at ${server.endpoint}`;
      expect(
        await failure(externalS3Target("bench"), { ...s3Env(server), S3_SECRET_KEY: "wrong-secret" }),
      ).toContain(`target "store": ${at}: access denied (HTTP 403); check the keys`);
      expect(await failure(externalS3Target("missing"), s3Env(server))).toContain(
        `target "store": bucket "missing" at ${server.endpoint}: no such bucket (HTTP 404); create it`,
      );
      const closed = `http://127.0.0.1:${await freePort()}`;
      expect(await failure(externalS3Target("bench"), { ...s3Env(server), S3_ENDPOINT: closed })).toContain(
        `target "store": bucket "bench" at ${closed}: connection refused; start the S3 server or check "endpoint"`,
      );
    });
  }, 90_000);

  it("a secret from the environment is in no file of the run, no output and no command line", async () => {
    await withMinio(["bench"], async (server) => {
      const work = await temps.make();
      const spec = await writeSpec(work, {
        name: "secret",
        targets: { store: externalS3Target("bench", { secretKey: "${env:SENTINEL_SECRET}" }) },
        workloads: [
          { name: "small", op: ["put", "get"], size: "4KiB", objects: 10, concurrency: 2, repeat: 2 },
          {
            name: "large",
            op: "put",
            size: "11MiB",
            objects: 1,
            multipart: { partSize: "5MiB", queue: 2 },
            repeat: 1,
          },
        ],
      });
      const runWith = async (secret: string, out: string) => {
        const leaks: string[] = [];
        let sawRun = false;
        const child = startCli(["run", spec, "--out", out], {
          S3_ENDPOINT: server.endpoint,
          S3_ACCESS_KEY: server.accessKey,
          SENTINEL_SECRET: secret,
        });
        const watch = watchProcesses(child.pid!, {
          intervalMs: 10,
          everyProcess: (p) => {
            if (p.cmdline.includes(secret)) leaks.push(`${p.pid}: ${p.cmdline}`);
            if (p.pid === child.pid && p.cmdline.includes(out)) sawRun = true;
          },
        });
        const result = await child;
        watch.stop();
        expect(sawRun, "the /proc scan saw the run").toBe(true);
        expect(leaks).toEqual([]);
        expect(result.stdout).not.toContain(secret);
        expect(result.stderr).not.toContain(secret);
        const files = await filesUnder(out);
        expect(files.some((f) => f.includes(`${join(out, "sdk")}/`))).toBe(true);
        for (const file of files) expect((await readFile(file)).includes(secret), file).toBe(false);
        // The artifacts reference the variable instead.
        expect(await readFile(join(out, "sdk", "small.store.put.json"), "utf8")).toContain(
          "${env:SENTINEL_SECRET}",
        );
        return result;
      };

      const good = await runWith(server.secretKey, join(work, "good"));
      expect(good.stderr).not.toContain("failed");
      expect(good.exitCode).toBe(0);
      expect(rowsOf(join(work, "good")).every((r) => r.ok)).toBe(true);

      // A wrong secret: the store refuses it, and no error message repeats it.
      const wrong = `SENTINEL-${randomBytes(12).toString("hex")}`;
      const bad = await runWith(wrong, join(work, "bad"));
      expect(bad.exitCode).toBe(1);
      expect(bad.stderr).toMatch(
        /bucket "bench" at http:\/\/127\.0\.0\.1:\d+: access denied \(HTTP 403\); check the keys/,
      );
    });
  }, 90_000);
});
