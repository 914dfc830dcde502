/**
 * One MinIO and one Kubo node for the whole bench, their data on tmpfs, shared by benchspec and the
 * reference tools. The environment each side gets: the standard AWS variables for s5cmd, the same values
 * under BENCH_* for the generated specs' `${env:…}` references.
 */
import { CreateBucketCommand } from "@aws-sdk/client-s3";
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { launchKubo, type KuboNode } from "../src/targets/ipfs/kubo-server.js";
import { makeS3Client } from "../src/targets/s3/client.js";
import { launchMinio, type MinioServer } from "../src/targets/s3/minio-server.js";
import { benchRoot } from "./paths.js";

export const BUCKET = "bench";

/** The bench's MinIO as a spec's target `minio`, everything by `${env:…}` reference (Servers.env). */
export const MINIO_TARGET_YAML = `  minio:
    kind: s3
    endpoint: \${env:BENCH_S3_ENDPOINT}
    bucket: \${env:BENCH_S3_BUCKET}
    region: us-east-1
    accessKey: \${env:AWS_ACCESS_KEY_ID}
    secretKey: \${env:AWS_SECRET_ACCESS_KEY}
    pathStyle: true
`;

export interface Servers {
  minio: MinioServer;
  kubo: KuboNode;
  /** Variables for the engine's specs and the reference tools alike. */
  env: Record<string, string>;
  /**
   * Empties MinIO's trash: MinIO renames deleted objects into it and frees them in the background, slower
   * than a round deletes them; on tmpfs that filled the machine's RAM (21 GiB after the s3 section) and the
   * next section ran in swap. Called after every side, so each side starts with the same free memory.
   */
  emptyTrash(): Promise<void>;
  stop(): Promise<void>;
}

export async function startServers(): Promise<Servers> {
  const parentDir = benchRoot();
  const [minio, kubo] = await Promise.all([launchMinio({ parentDir }), launchKubo({ parentDir })]);
  const stop = async () => {
    await Promise.allSettled([minio.stop(), kubo.stop()]);
  };
  try {
    const client = makeS3Client(
      {
        endpoint: minio.endpoint,
        region: minio.region,
        bucket: BUCKET,
        forcePathStyle: true,
        credentials: { accessKeyId: minio.accessKey, secretAccessKey: minio.secretKey },
      },
      1,
    );
    await client.send(new CreateBucketCommand({ Bucket: BUCKET })).finally(() => client.destroy());
  } catch (error) {
    await stop();
    throw error;
  }
  const env = {
    AWS_ACCESS_KEY_ID: minio.accessKey,
    AWS_SECRET_ACCESS_KEY: minio.secretKey,
    AWS_REGION: minio.region,
    BENCH_S3_ENDPOINT: minio.endpoint,
    BENCH_S3_BUCKET: BUCKET,
    BENCH_IPFS_API: kubo.api,
  };
  const trash = join(minio.dataDir, ".minio.sys", "tmp", ".trash");
  const emptyTrash = async () => {
    const entries = await readdir(trash).catch(() => []);
    await Promise.all(entries.map((entry) => rm(join(trash, entry), { recursive: true, force: true })));
  };
  return { minio, kubo, env, emptyTrash, stop };
}
