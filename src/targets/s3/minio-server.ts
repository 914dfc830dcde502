/**
 * `launch: minio`: a throwaway single-drive MinIO on loopback, used by tests and by users alike.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { freePorts } from "../../platform/ports.js";
import { startGroup } from "../../platform/process.js";
import { minioBinary } from "../../platform/tools.js";
import { waitForHttp } from "../../platform/wait.js";

export interface MinioServer {
  /** S3 endpoint, e.g. "http://127.0.0.1:40123" (path-style addressing). */
  endpoint: string;
  accessKey: string;
  secretKey: string;
  region: string;
  /** The temp data dir (removed by stop()). */
  dataDir: string;
  /** Process-group id of the server. */
  pid: number;
  /** Kills the server's process group and removes the data dir. Idempotent. */
  stop(): Promise<void>;
}

export interface LaunchMinioOptions {
  /** Parent of the temp data dir; put it on the storage under test. Default: os.tmpdir(). */
  parentDir?: string;
  binary?: string;
  startTimeoutMs?: number;
  /** Told the data dir as soon as it exists (a run records it, to remove it should the run be killed). */
  created?: (dataDir: string) => void;
  /** The address it listens on (default: loopback); tests serve namespaced client hosts on their bridge. */
  host?: string;
}

const REGION = "us-east-1";

export async function launchMinio(options: LaunchMinioOptions = {}): Promise<MinioServer> {
  const binary = options.binary ?? minioBinary();
  const dataDir = await mkdtemp(path.join(options.parentDir ?? os.tmpdir(), "benchspec-minio-"));
  options.created?.(dataDir);
  const accessKey = `bs${randomBytes(9).toString("hex")}`;
  const secretKey = randomBytes(24).toString("base64url");
  const host = options.host ?? "127.0.0.1";
  const [port, consolePort] = await freePorts([host, "127.0.0.1"]);
  const endpoint = `http://${host}:${port}`;

  let server;
  try {
    server = await startGroup(
      binary,
      // Both listeners on one address: without --console-address MinIO picks a random port on all interfaces.
      ["server", dataDir, "--address", `${host}:${port}`, "--console-address", `127.0.0.1:${consolePort}`],
      {
        label: "minio",
        env: {
          // Credentials only through the environment: argv is world-readable in /proc.
          MINIO_ROOT_USER: accessKey,
          MINIO_ROOT_PASSWORD: secretKey,
          MINIO_SITE_REGION: REGION,
          // No network traffic beyond loopback: no update check, no call-home to SUBNET.
          MINIO_UPDATE: "off",
          MINIO_CALLHOME_ENABLE: "off",
          // CI or MINIO_CI_CD switch MinIO into a CI mode with a 256 MiB buffer pool and other shortcuts,
          // which would make benchmark numbers differ between CI and a user's machine.
          CI: undefined,
          MINIO_CI_CD: undefined,
        },
      },
    );
    // /minio/health/live answers 200 before the object layer and IAM are up (S3 calls then get 503 or
    // signature errors); /minio/health/cluster answers 200 only once they are.
    await waitForHttp(`${endpoint}/minio/health/cluster`, server, { timeoutMs: options.startTimeoutMs });
  } catch (error) {
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }

  const group = server;
  let stopping: Promise<void> | undefined;
  return {
    endpoint,
    accessKey,
    secretKey,
    region: REGION,
    dataDir,
    pid: group.pid,
    stop: () =>
      (stopping ??= (async () => {
        await group.stop();
        await rm(dataDir, { recursive: true, force: true });
      })()),
  };
}
