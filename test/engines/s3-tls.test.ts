/**
 * The S3 engine over HTTPS: a MinIO serving TLS with a self-signed certificate, trusted by the benchspec
 * process through NODE_EXTRA_CA_CERTS (how users trust a private CA). Both the data plane (benchspec's own
 * TLS connections) and the control plane (the SDK: multipart, listing, cleanup) must work, and the bytes
 * must arrive intact.
 */
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import { execa } from "execa";
import { randomBytes } from "node:crypto";
import { mkdir, readFile } from "node:fs/promises";
import https from "node:https";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { makePayload } from "../../src/engines/load/payload.js";
import { freePort } from "../../src/platform/ports.js";
import { startGroup } from "../../src/platform/process.js";
import { minioBinary } from "../../src/platform/tools.js";
import type { Provenance } from "../../src/results/run-dir.js";
import {
  getObject,
  listObjects,
  listUploads,
  readJson,
  rowsOf,
  startCli,
  tempDirs,
  waitFor,
  writeSpec,
} from "./support.js";

const temps = tempDirs("benchspec-s3-tls-");
afterAll(() => temps.removeAll());

describe("S3 engine over TLS", () => {
  it("puts and gets (whole, multipart, ranged) against an HTTPS MinIO with a private CA", async () => {
    const work = await temps.make();
    const certs = join(work, "certs");
    await mkdir(certs);
    await execa("openssl", [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
      "-keyout",
      join(certs, "private.key"),
      "-out",
      join(certs, "public.crt"),
    ]);
    const ca = await readFile(join(certs, "public.crt"));
    const port = await freePort();
    const endpoint = `https://127.0.0.1:${port}`;
    const accessKey = `bs${randomBytes(6).toString("hex")}`;
    const secretKey = randomBytes(18).toString("base64url");
    const server = await startGroup(
      minioBinary(),
      [
        "server",
        join(work, "data"),
        "--certs-dir",
        certs,
        "--address",
        `127.0.0.1:${port}`,
        "--console-address",
        `127.0.0.1:${await freePort()}`,
      ],
      {
        label: "minio",
        env: {
          MINIO_ROOT_USER: accessKey,
          MINIO_ROOT_PASSWORD: secretKey,
          MINIO_UPDATE: "off",
          CI: undefined,
        },
      },
    );
    const agent = new https.Agent({ ca, keepAlive: true });
    const client = new S3Client({
      endpoint,
      region: "us-east-1",
      forcePathStyle: true,
      credentials: { accessKeyId: accessKey, secretAccessKey: secretKey },
      requestHandler: new NodeHttpHandler({ httpsAgent: agent }),
    });
    try {
      await waitFor(
        () =>
          new Promise<boolean>((resolve) =>
            https
              .get(`${endpoint}/minio/health/cluster`, { ca }, (response) => {
                response.resume();
                resolve(response.statusCode === 200);
              })
              .on("error", () => resolve(false)),
          ),
        60_000,
        "MinIO over TLS",
      );
      await client.send(new CreateBucketCommand({ Bucket: "tls" }));
      const spec = await writeSpec(work, {
        name: "tls",
        targets: {
          store: {
            kind: "s3",
            endpoint,
            accessKey: "${env:K}",
            secretKey: "${env:S}",
            bucket: "tls",
            keep: true,
          },
        },
        workloads: [
          { name: "small", op: ["put", "get"], size: "100KiB", objects: 6, concurrency: 3 },
          {
            name: "big",
            op: ["put", "get"],
            size: "9MiB",
            objects: 2,
            concurrency: 2,
            multipart: { partSize: "5MiB", queue: 2 },
          },
        ],
      });
      const out = join(work, "run");
      const result = await startCli(["run", spec, "--out", out], {
        K: accessKey,
        S: secretKey,
        NODE_EXTRA_CA_CERTS: join(certs, "public.crt"),
      });
      expect(result.exitCode, String(result.stderr)).toBe(0);
      const rows = rowsOf(out);
      expect(rows).toHaveLength(4);
      for (const row of rows) {
        expect(row.ok, row.error).toBe(true);
        expect(row.bytes).toBe(row.workload === "big" ? 2 * 9 * 2 ** 20 : 6 * 100 * 1024);
      }
      const { runId } = await readJson<Provenance>(join(out, "provenance.json"));
      const objects = await listObjects(client, "tls");
      expect(objects).toHaveLength(2 * 6 + 2 * 2);
      // The bytes went through TLS intact: each object is its regenerated payload.
      for (const [key, size] of [
        ["small.store.put/r1/o5", 100 * 1024],
        ["big.store.put/r1/o1", 9 * 2 ** 20],
      ] as const) {
        const body = await getObject(client, "tls", `benchspec/tls/${runId}/${key}`);
        expect(body.equals(makePayload(`${runId}|${key}`, size, "random").slice(0, size)), key).toBe(true);
      }
      expect(await listUploads(client, "tls")).toEqual([]);
    } finally {
      client.destroy();
      agent.destroy();
      await server.stop();
    }
  }, 120_000);
});
