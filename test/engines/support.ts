/**
 * Helpers for the engine integration tests: the real CLI as a child process, a /proc watcher that sees what
 * the run starts (launched servers, their repos, every command line), and plain S3 calls to inspect a bucket
 * from outside the run.
 */
import {
  CreateBucketCommand,
  GetObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  S3Client,
} from "@aws-sdk/client-s3";
import { execa } from "execa";
import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { launchMinio, type MinioServer } from "../../src/targets/s3/minio-server.js";
import { readRows } from "../../src/results/ndjson.js";
import type { ResultRow } from "../../src/rows/row.js";
import { ROOT } from "../support/spec.js";

// The SDK warns on Node 20 about its releases after January 2027; the locked version supports it.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";

/* ---------- temp dirs and specs ---------- */

export function tempDirs(prefix: string) {
  const dirs: string[] = [];
  return {
    async make() {
      const dir = await mkdtemp(join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
    removeAll: () => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))),
  };
}

export async function writeSpec(dir: string, spec: object): Promise<string> {
  const file = join(dir, "spec.yaml");
  await writeFile(file, stringify({ benchspec: 1, ...spec }));
  return file;
}

export const rowsOf = (runDir: string) => readRows<ResultRow>(join(runDir, "results.ndjson"));
export const readJson = async <T>(file: string) => JSON.parse(await readFile(file, "utf8")) as T;

/** Every file under a directory (recursively), as paths. */
export async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path)));
    else out.push(path);
  }
  return out;
}

/* ---------- the CLI ---------- */

/** `benchspec …` from the build, as a child process (the env is added to this process's). */
export const startCli = (args: string[], env: Record<string, string> = {}) =>
  execa("node", [join(ROOT, "bin/benchspec.js"), ...args], { reject: false, env: { NO_COLOR: "1", ...env } });

export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(25);
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Ctrl-C to a CLI child `afterMs` after its run started (its run.json is in `runDir`: it handles Ctrl-C by
 * then; a fixed delay from the process's start raced node's start-up on a loaded machine): how it ended,
 * and how long it took to end after the signal.
 */
export async function interruptAfter(child: ReturnType<typeof startCli>, runDir: string, afterMs: number) {
  await waitFor(() => existsSync(join(runDir, "run.json")), 30_000, `the run in ${runDir} to start`);
  await sleep(afterMs);
  const stopped = Date.now();
  child.kill("SIGINT");
  const ended = await child;
  return { ended, tookMs: Date.now() - stopped };
}

/* ---------- processes, from /proc ---------- */

export interface ProcInfo {
  pid: number;
  ppid: number;
  cmdline: string;
}

export function listProcesses(): ProcInfo[] {
  const found: ProcInfo[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after the last ")".
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const cmdline = readFileSync(`/proc/${name}/cmdline`, "utf8").replaceAll("\0", " ").trim();
      found.push({ pid: Number(name), ppid, cmdline });
    } catch {
      // the process ended meanwhile
    }
  }
  return found;
}

/** The processes below `root` (children, grandchildren, …). */
export function descendantsOf(root: number, all = listProcesses()): ProcInfo[] {
  const below = new Set([root]);
  const out: ProcInfo[] = [];
  for (let grew = true; grew;) {
    grew = false;
    for (const p of all) {
      if (below.has(p.ppid) && !below.has(p.pid)) {
        below.add(p.pid);
        out.push(p);
        grew = true;
      }
    }
  }
  return out;
}

export const processAlive = (pid: number) => {
  try {
    // A zombie still has a /proc entry; "Z" in its state means it is gone for every purpose here.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
};

/** Paths of the files a process holds open (its /proc fd links). */
export function openPaths(pid: number): string[] {
  try {
    return readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
      try {
        return [readlinkSync(`/proc/${pid}/fd/${fd}`)];
      } catch {
        return [];
      }
    });
  } catch {
    return [];
  }
}

export interface Seen extends ProcInfo {
  /** Date.now() of the first and last poll that saw the process alive. */
  firstSeen: number;
  lastSeen: number;
  /** For a Kubo daemon: its IPFS_PATH, from the files it holds open in it. */
  repo?: string;
}

/**
 * Polls /proc while a run is going on: remembers every descendant of `root` (with when it was seen), and
 * calls `everyProcess` with every process's command line on every poll.
 */
export function watchProcesses(
  root: number,
  options: { intervalMs?: number; everyProcess?: (p: ProcInfo) => void } = {},
) {
  const seen = new Map<number, Seen>();
  let polls = 0;
  const poll = () => {
    const now = Date.now();
    const all = listProcesses();
    polls++;
    if (options.everyProcess) all.forEach(options.everyProcess);
    for (const p of descendantsOf(root, all)) {
      const known = seen.get(p.pid) ?? { ...p, firstSeen: now, lastSeen: now };
      // A child's cmdline changes once it has exec'd (node → minio); keep the latest.
      known.cmdline = p.cmdline || known.cmdline;
      known.lastSeen = now;
      if (!known.repo && / daemon( |$)/.test(p.cmdline)) {
        known.repo = openPaths(p.pid)
          .map((path) => /^(.*\/benchspec-kubo-[^/]+)(\/|$)/.exec(path)?.[1])
          .find((repo) => repo !== undefined);
      }
      seen.set(p.pid, known);
    }
  };
  poll();
  const timer = setInterval(poll, options.intervalMs ?? 15);
  return {
    seen: () => [...seen.values()],
    polls: () => polls,
    stop() {
      clearInterval(timer);
      poll();
      return [...seen.values()];
    },
  };
}

/* ---------- S3, from outside the run ---------- */

export function s3Client(server: MinioServer): S3Client {
  return new S3Client({
    endpoint: server.endpoint,
    region: server.region,
    forcePathStyle: true,
    credentials: { accessKeyId: server.accessKey, secretAccessKey: server.secretKey },
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
}

/** A MinIO of the test's own with these buckets, stopped after `body`. */
export async function withMinio<T>(
  buckets: string[],
  body: (server: MinioServer, client: S3Client) => Promise<T>,
): Promise<T> {
  const server = await launchMinio();
  const client = s3Client(server);
  try {
    for (const Bucket of buckets) await client.send(new CreateBucketCommand({ Bucket }));
    return await body(server, client);
  } finally {
    client.destroy();
    await server.stop();
  }
}

/** A launched MinIO (launchMinio's options) with `bucket` made; the caller stops it. */
export async function minioWithBucket(
  bucket: string,
  options?: Parameters<typeof launchMinio>[0],
): Promise<MinioServer> {
  const server = await launchMinio(options);
  const client = s3Client(server);
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } catch (error) {
    await server.stop();
    throw error;
  } finally {
    client.destroy();
  }
  return server;
}

/** The spec side of an external MinIO: everything by `${env:…}` reference, values in `s3Env(server)`. */
export const externalS3Target = (bucket: string, extra: object = {}) => ({
  kind: "s3",
  endpoint: "${env:S3_ENDPOINT}",
  accessKey: "${env:S3_ACCESS_KEY}",
  secretKey: "${env:S3_SECRET_KEY}",
  bucket,
  ...extra,
});

export const s3Env = (server: MinioServer) => ({
  S3_ENDPOINT: server.endpoint,
  S3_ACCESS_KEY: server.accessKey,
  S3_SECRET_KEY: server.secretKey,
});

export interface Listed {
  key: string;
  size: number;
  etag: string;
}

export async function listObjects(client: S3Client, bucket: string, prefix?: string): Promise<Listed[]> {
  const out: Listed[] = [];
  let ContinuationToken: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken }),
    );
    for (const o of page.Contents ?? []) out.push({ key: o.Key!, size: o.Size!, etag: o.ETag! });
    ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (ContinuationToken);
  return out;
}

/**
 * Every incomplete multipart upload of the bucket. Deliberately without a Prefix: MinIO answers a
 * ListMultipartUploads with a Prefix only for uploads whose key equals the prefix, so a prefix listing
 * would find nothing and prove nothing.
 */
export async function listUploads(
  client: S3Client,
  bucket: string,
): Promise<{ key: string; uploadId: string }[]> {
  const out: { key: string; uploadId: string }[] = [];
  let KeyMarker: string | undefined;
  let UploadIdMarker: string | undefined;
  do {
    const page = await client.send(
      new ListMultipartUploadsCommand({ Bucket: bucket, KeyMarker, UploadIdMarker }),
    );
    for (const u of page.Uploads ?? []) out.push({ key: u.Key!, uploadId: u.UploadId! });
    KeyMarker = page.IsTruncated ? page.NextKeyMarker : undefined;
    UploadIdMarker = page.IsTruncated ? page.NextUploadIdMarker : undefined;
  } while (KeyMarker);
  return out;
}

export async function getObject(client: S3Client, bucket: string, key: string): Promise<Buffer> {
  const response = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return Buffer.from(await response.Body!.transformToByteArray());
}
