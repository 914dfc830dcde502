/**
 * The real tools benchspec drives: fio runs a job, a launched MinIO speaks authenticated S3, a launched Kubo
 * adds and returns content, and stop() leaves no port, directory or process behind.
 */
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchKubo, type KuboNode } from "../../src/targets/ipfs/kubo-server.js";
import { launchMinio, type MinioServer } from "../../src/targets/s3/minio-server.js";
import { groupAlive } from "../../src/platform/process.js";
import { fioBinary, kuboBinary } from "../../src/platform/tools.js";
import { listeningAddresses } from "../support/listening.js";
import { signedS3Fetch } from "../support/sigv4.js";

describe("fio", () => {
  async function fioWrite(size: string): Promise<{ ioBytes: number; fileBytes: number }> {
    const dir = await mkdtemp(path.join(os.tmpdir(), "benchspec-fio-"));
    try {
      const file = path.join(dir, "f");
      const { stdout } = await execa(fioBinary(), [
        "--name=smoke",
        `--filename=${file}`,
        `--size=${size}`,
        "--rw=write",
        "--bs=4k",
        "--output-format=json",
      ]);
      const report = JSON.parse(stdout) as { jobs: { jobname: string; write: { io_bytes: number } }[] };
      expect(report.jobs.map((job) => job.jobname)).toEqual(["smoke"]);
      return { ioBytes: report.jobs[0]!.write.io_bytes, fileBytes: (await stat(file)).size };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  it("runs a real 1 MiB write job and reports it in JSON", async () => {
    expect(await fioWrite("1048576")).toEqual({ ioBytes: 1024 * 1024, fileBytes: 1024 * 1024 });
  });

  // fio's default kb_base=1024 reads k/m/g as binary but kib/mib/gib as *decimal* (documented, kept for old
  // scripts), so "1MiB" is 1,000,000 bytes. Emitters must therefore write sizes to fio as plain byte counts.
  it("reads IEC suffixes as decimal, which is why sizes are passed in bytes", async () => {
    expect(await fioWrite("1MiB")).toEqual({ ioBytes: 244 * 4096, fileBytes: 1_000_000 });
    expect(await fioWrite("1m")).toEqual({ ioBytes: 1024 * 1024, fileBytes: 1024 * 1024 });
  });
});

describe("launchMinio", () => {
  let minio: MinioServer;
  beforeAll(async () => {
    minio = await launchMinio();
  });
  afterAll(() => minio?.stop());

  it("listens on loopback only, with generated credentials", async () => {
    expect(minio.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await expectLoopbackOnly(minio.pid, minio.endpoint);
    expect(minio.accessKey).not.toBe("minioadmin");
    expect(minio.secretKey.length).toBeGreaterThanOrEqual(8);
    expect(existsSync(minio.dataDir)).toBe(true);
  });

  it("answers the liveness probe", async () => {
    const response = await fetch(`${minio.endpoint}/minio/health/live`);
    expect(response.status).toBe(200);
  });

  it("speaks S3: anonymous requests are denied with an S3 XML error", async () => {
    const response = await fetch(`${minio.endpoint}/`);
    expect(response.status).toBe(403);
    const body = await response.text();
    expect(body).toContain("<Error>");
    expect(body).toContain("<Code>AccessDenied</Code>");
  });

  it("accepts requests signed with the generated credentials, and only those", async () => {
    const bucket = `smoke-${randomBytes(4).toString("hex")}`;
    const payload = randomBytes(1000);
    expect((await signedS3Fetch(minio, "PUT", `${minio.endpoint}/${bucket}`)).status).toBe(200);
    expect((await signedS3Fetch(minio, "PUT", `${minio.endpoint}/${bucket}/obj`, payload)).status).toBe(200);
    const got = await signedS3Fetch(minio, "GET", `${minio.endpoint}/${bucket}/obj`);
    expect(got.status).toBe(200);
    expect(Buffer.from(await got.arrayBuffer()).equals(payload)).toBe(true);
    const list = await signedS3Fetch(minio, "GET", `${minio.endpoint}/`);
    expect(await list.text()).toContain(`<Name>${bucket}</Name>`);

    const forged = await signedS3Fetch({ ...minio, secretKey: "wrong-secret" }, "GET", `${minio.endpoint}/`);
    expect(forged.status).toBe(403);
    expect(await forged.text()).toContain("<Code>SignatureDoesNotMatch</Code>");
    const defaults = { accessKey: "minioadmin", secretKey: "minioadmin", region: minio.region };
    expect((await signedS3Fetch(defaults, "GET", `${minio.endpoint}/`)).status).toBe(403);
  });

  it("keeps the credentials off the command line", async () => {
    const argv = (await readFile(`/proc/${minio.pid}/cmdline`, "utf8")).split("\0");
    expect(argv).toContain("server");
    expect(argv.join(" ")).not.toContain(minio.secretKey);
    expect(argv.join(" ")).not.toContain(minio.accessKey);
  });

  it("stop() closes the ports, removes the data dir and leaves no process", async () => {
    const port = Number(new URL(minio.endpoint).port);
    await minio.stop();
    await expectPortClosed(port);
    expect(existsSync(minio.dataDir)).toBe(false);
    expectGone(minio.pid);
    await minio.stop(); // idempotent
  });
});

describe("launchKubo", () => {
  let kubo: KuboNode;
  beforeAll(async () => {
    kubo = await launchKubo();
  });
  afterAll(() => kubo?.stop());

  it("listens on loopback only, offline", async () => {
    expect(kubo.api).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(kubo.gateway).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const config = JSON.parse(await readFile(path.join(kubo.repoPath, "config"), "utf8"));
    expect(config.Addresses.Swarm).toEqual([]);
    expect(config.Bootstrap).toEqual([]);
    const argv = (await readFile(`/proc/${kubo.pid}/cmdline`, "utf8")).split("\0");
    expect(argv).toContain("--offline");
    await expectLoopbackOnly(kubo.pid, kubo.api);
  });

  it("answers /api/v0/id with the node's peer ID", async () => {
    const response = await fetch(`${kubo.api}/api/v0/id`, { method: "POST" });
    expect(response.status).toBe(200);
    const id = (await response.json()) as { ID: string; AgentVersion: string };
    expect(id.ID).toMatch(/^12D3KooW|^Qm/);
    expect(id.AgentVersion).toContain("kubo/0.42.0");
  });

  it("adds bytes and returns them by CID, over RPC and through the ipfs CLI", async () => {
    const payload = randomBytes(3000);
    const form = new FormData();
    form.append("file", new Blob([payload]), "smoke.bin");
    const added = await fetch(`${kubo.api}/api/v0/add?cid-version=1`, { method: "POST", body: form });
    expect(added.status).toBe(200);
    const { Hash: cid } = (await added.json()) as { Hash: string };
    expect(cid).toMatch(/^bafk/); // CIDv1, raw leaf: a single-block file

    const cat = await fetch(`${kubo.api}/api/v0/cat?arg=${cid}`, { method: "POST" });
    expect(cat.status).toBe(200);
    expect(Buffer.from(await cat.arrayBuffer()).equals(payload)).toBe(true);

    const cli = await execa(kuboBinary(), ["--api", kubo.apiMultiaddr, "cat", cid], {
      encoding: "buffer",
      env: { IPFS_PATH: kubo.repoPath },
    });
    expect(Buffer.from(cli.stdout).equals(payload)).toBe(true);
  });

  it("stop() closes the ports, removes the repo and leaves no process", async () => {
    const ports = [kubo.api, kubo.gateway].map((url) => Number(new URL(url).port));
    await kubo.stop();
    for (const port of ports) await expectPortClosed(port);
    expect(existsSync(kubo.repoPath)).toBe(false);
    expectGone(kubo.pid);
    await kubo.stop(); // idempotent
  });
});

async function expectLoopbackOnly(pid: number, url: string): Promise<void> {
  const addresses = await listeningAddresses(pid);
  // MinIO also binds [::1] for a 127.0.0.1 address; both are loopback.
  expect(addresses).toContain(`127.0.0.1:${new URL(url).port}`);
  for (const address of addresses) expect(address).toMatch(/^(127\.\d+\.\d+\.\d+|\[::1\]):\d+$/);
}

function expectGone(pid: number): void {
  expect(groupAlive(pid)).toBe(false);
  expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: "ESRCH" }));
}

async function expectPortClosed(port: number): Promise<void> {
  const code = await new Promise<string | undefined>((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve("connected");
    });
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code));
  });
  expect(code).toBe("ECONNREFUSED");
}
