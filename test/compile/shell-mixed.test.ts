/**
 * The s3 op `mixed` in the compiled script: the same interleaving of gets, stats, puts and deletes as
 * benchspec run's (bs_s3_mix against mixSequence), its rows counted per operation (byOp) as run's are, and
 * the bucket left as it was.
 */
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MinioServer } from "../../src/targets/s3/minio-server.js";
import { compilePlan } from "../../src/compile/compile.js";
import { writeArtifacts } from "../../src/compile/output.js";
import { SHELL_SCRIPT_PATH } from "../../src/compile/shell/script.js";
import { VERSION } from "../../src/cli/context.js";
import { mixCounts, mixSequence } from "../../src/engines/s3/sdk.js";
import { ResultRowSchema, type ResultRow } from "../../src/rows/row.js";
import {
  externalS3Target,
  listObjects,
  minioWithBucket,
  rowsOf,
  s3Client,
  s3Env,
  tempDirs,
  writeSpec,
} from "../engines/support.js";
import { runCli } from "../support/cli.js";
import { planOf } from "../support/spec.js";

const temps = tempDirs("benchspec-mixed-");
afterAll(() => temps.removeAll());

const S3_SH = fileURLToPath(new URL("../../src/engines/s3/s3.sh", import.meta.url));

describe("bs_s3_mix", () => {
  it("interleaves a pass's kinds exactly as benchspec run's mixSequence, numbering each kind's ops", async () => {
    const mixes = [
      { get: 45, stat: 30, put: 15, delete: 10 },
      { get: 50, stat: 20, put: 20, delete: 10 },
      { get: 33, put: 33, stat: 34 },
      { put: 100 },
      { get: 1, stat: 1, put: 1, delete: 97 },
    ];
    for (const mix of mixes)
      for (const total of [1, 7, 20, 333]) {
        const counts = mixCounts(mix, total);
        const script = `source ${S3_SH}; bs_s3_mix ${counts.join(" ")} ${total}; printf '%s %s\\n' "$BS_S3_PUTS" "$BS_S3_DELETES"; for ((n = 0; n < ${total}; n++)); do printf '%s %s\\n' "\${BS_S3_KIND[n]}" "\${BS_S3_NTH[n]}"; done`;
        const { stdout } = await execa("bash", ["-c", script]);
        const [totals, ...lines] = stdout.split("\n");
        const expected = mixSequence(mix, total);
        const seen: Record<string, number> = {};
        expect(lines, JSON.stringify({ mix, total })).toEqual(
          expected.map((kind) => `${kind} ${(seen[kind] = (seen[kind] ?? -1) + 1)}`),
        );
        expect(totals).toBe(`${counts[2]} ${counts[3]}`);
      }
  });
});

describe("a compiled s3 mixed case against MinIO", () => {
  let server: MinioServer;
  beforeAll(async () => {
    server = await minioWithBucket("mixed");
  });
  afterAll(async () => {
    await server?.stop();
  });

  const spec = (workloads: object[]) => ({
    benchspec: 1,
    name: "shell-mixed",
    targets: { store: externalS3Target("mixed") },
    workloads,
  });
  const counted = {
    name: "mix",
    target: "store",
    op: "mixed",
    size: "8KiB",
    objects: 20,
    concurrency: 4,
    repeat: 2,
    mix: { get: "50%", stat: "20%", put: "20%", delete: "10%" },
  };
  const perOp = (row: ResultRow) =>
    Object.fromEntries(Object.entries(row.byOp ?? {}).map(([op, o]) => [op, [o.ops, o.bytes, o.errors]]));

  it("runs gets, stats, puts and deletes in one load, counted per operation as benchspec run counts them; the bucket as before", async () => {
    const client = s3Client(server);
    const before = await listObjects(client, "mixed");
    const plan = planOf(
      spec([counted, { ...counted, name: "timed", objects: 10, repeat: 1, duration: "1s", mix: undefined }]),
    );
    const { artifacts, leftOut } = await compilePlan(plan, ["shell"], VERSION);
    expect(leftOut).toEqual([]);
    const dir = await temps.make();
    await writeArtifacts(dir, artifacts);
    const script = await execa(join(dir, SHELL_SCRIPT_PATH), [], {
      env: s3Env(server),
      reject: false,
      timeout: 120_000,
    });
    expect(script.exitCode, script.stderr).toBe(0);
    const rows = script.stdout.split("\n").map((line) => ResultRowSchema.parse(JSON.parse(line)));
    const KiB = 1024;
    const mixRows = rows.filter((row) => row.case === "mix.store.mixed");
    expect(mixRows).toHaveLength(2);
    for (const row of mixRows) {
      expect(row, row.error).toMatchObject({ ok: true, ops: 20, bytes: (10 + 4) * 8 * KiB });
      expect(perOp(row)).toEqual({
        DeleteObject: [2, 0, 0],
        GetObject: [10, 10 * 8 * KiB, 0],
        HeadObject: [4, 0, 0],
        PutObject: [4, 4 * 8 * KiB, 0],
      });
      for (const op of Object.values(row.byOp!)) {
        expect(op.latency!.p50).toBeGreaterThan(0);
        expect(op.latency!.p50).toBeLessThanOrEqual(row.latency!["p99.9"]!);
      }
      // Every op is in the row's latency bins, whatever its kind.
      expect(Object.values(row.latencyBins!).reduce((a, b) => a + b, 0)).toBe(20);
    }
    // With a duration, whole passes of the default mix (get 45, stat 30, put 15, delete 10 of 10 ops) repeat.
    const timed = rows.find((row) => row.case === "timed.store.mixed")!;
    expect(timed.ok, timed.error).toBe(true);
    const passes = timed.ops / 10;
    expect(Number.isInteger(passes) && passes >= 1, `${timed.ops} ops`).toBe(true);
    expect(timed.seconds).toBeGreaterThanOrEqual(1);
    expect(perOp(timed)).toEqual({
      DeleteObject: [1 * passes, 0, 0],
      GetObject: [5 * passes, 5 * passes * 8 * KiB, 0],
      HeadObject: [3 * passes, 0, 0],
      PutObject: [1 * passes, 1 * passes * 8 * KiB, 0],
    });
    expect(await listObjects(client, "mixed")).toEqual(before);

    // benchspec run of the same case: the same operations of each kind.
    const work = await temps.make();
    const out = join(work, "run");
    const run = await runCli(["run", await writeSpec(work, spec([counted])), "--out", out], s3Env(server));
    expect(run.code, run.stderr).toBe(0);
    for (const row of rowsOf(out)) expect(perOp(row)).toEqual(perOp(mixRows[0]!));
    client.destroy();
  }, 180_000);
});
