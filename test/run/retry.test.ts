/**
 * --resume runs failed repetitions again (the later row stands; results.ndjson stays append-only), and a
 * run whose targets need an unset `${env:…}` stops before anything is run.
 */
import { CreateBucketCommand } from "@aws-sdk/client-s3";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadInputs } from "../../src/report/load.js";
import type { RunSummaryDocument } from "../../src/results/run-dir.js";
import { launchMinio } from "../../src/targets/s3/minio-server.js";
import {
  externalS3Target,
  readJson,
  rowsOf,
  s3Client,
  s3Env,
  startCli,
  tempDirs,
  writeSpec,
} from "../engines/support.js";

const temps = tempDirs("benchspec-retry-");
afterAll(() => temps.removeAll());

const spec = (work: string) =>
  writeSpec(work, {
    name: "retry",
    targets: { store: externalS3Target("bench") },
    workloads: [{ name: "w", op: "put", size: "4KiB", objects: 4, repeat: 2 }],
  });

describe("--resume and failed repetitions", () => {
  it("runs the failed repetitions again; the summary and the report count the rows that stand", async () => {
    const store = await launchMinio();
    const client = s3Client(store);
    try {
      await client.send(new CreateBucketCommand({ Bucket: "bench" }));
      const work = await temps.make();
      const out = join(work, "run");
      // A wrong key: every repetition fails, as with any fault fixed before resuming.
      const failed = await startCli(["run", await spec(work), "--out", out], {
        ...s3Env(store),
        S3_SECRET_KEY: "wrong",
      });
      expect(failed.exitCode).toBe(1);
      expect(rowsOf(out).map((r) => [r.repetition, r.ok])).toEqual([
        [1, false],
        [2, false],
      ]);

      const resumed = await startCli(["run", "--resume", out], s3Env(store));
      expect(resumed.stderr).not.toContain("failed");
      expect(resumed.exitCode).toBe(0);
      // Append-only: the failed rows stay, the retried ones follow.
      expect(rowsOf(out).map((r) => [r.repetition, r.ok])).toEqual([
        [1, false],
        [2, false],
        [1, true],
        [2, true],
      ]);
      const summary = await readJson<RunSummaryDocument>(join(out, "summary.json"));
      expect(summary.failedCases).toEqual([]);
      expect(summary.cases[0]).toMatchObject({ repetitions: 2, failed: 0 });

      const [run] = await loadInputs([out]);
      expect(run!.cases[0]).toMatchObject({ repetitions: 2, failed: 0, errors: [] });
    } finally {
      client.destroy();
      await store.stop();
    }
  }, 120_000);

  it("an unset ${env:…} of a target: exit 2 naming the variable and where the spec uses it, nothing run", async () => {
    const work = await temps.make();
    const out = join(work, "run");
    const result = await startCli(["run", await spec(work), "--out", out], {
      S3_ENDPOINT: "http://127.0.0.1:9",
      S3_ACCESS_KEY: "key",
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("S3_SECRET_KEY (used at targets.store.secretKey)");
    expect(existsSync(out)).toBe(false);
  });
});
