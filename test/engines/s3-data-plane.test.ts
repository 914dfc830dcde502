/**
 * S3DataPlane (benchspec's own HTTP/1.1 + SigV4 requests) against a real MinIO on loopback, checked from
 * the outside with the AWS SDK: exact keys (spaces, unicode, reserved characters), exact bytes, ranges,
 * multipart parts, deletes, and S3 errors shaped like the SDK's.
 */
import {
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  HeadObjectCommand,
  type S3Client,
} from "@aws-sdk/client-s3";
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makePayload } from "../../src/engines/load/payload.js";
import { makeS3Client, type S3Connection } from "../../src/targets/s3/client.js";
import { S3DataPlane } from "../../src/engines/s3/data-plane.js";
import { launchMinio, type MinioServer } from "../../src/targets/s3/minio-server.js";
import { getObject, listObjects } from "./support.js";

const MiB = 2 ** 20;
const BUCKET = "data-plane";
const OPTIONS = { connectTimeoutMs: 10_000, idleTimeoutMs: 60_000 };

/** Keys whose path encoding and signing are easy to get wrong. */
const SPECIAL_KEYS = [
  "plain.bin",
  "with space/and  two  spaces .bin",
  "ünïcödé/日本語/😀 emoji.bin",
  "plus+equals=percent%tilde~bang!.bin",
  "quote'paren(star*)/x",
  "a+b=c/literal %2F and %20/~x",
  "deep/nested/path/with/many/levels/leaf",
];

let server: MinioServer;
let client: S3Client;
let connection: S3Connection;
let data: S3DataPlane;
const signal = () => new AbortController().signal;

beforeAll(async () => {
  server = await launchMinio();
  connection = {
    endpoint: server.endpoint,
    region: server.region,
    bucket: BUCKET,
    forcePathStyle: true,
    credentials: { accessKeyId: server.accessKey, secretAccessKey: server.secretKey },
  };
  client = makeS3Client(connection, 8);
  await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
  // As the S3 executor builds it: the SDK's credential chain resolves the identity.
  data = new S3DataPlane(connection, () => client.config.credentials(), OPTIONS);
});

afterAll(async () => {
  data?.destroy();
  client?.destroy();
  await server?.stop();
});

/**
 * Rejections nobody handles while `body` runs and shortly after (a request's stray body writes settle once
 * its socket is gone). Under plain Node they end the process: a benchmark run would die on them.
 */
async function unhandledRejectionsDuring(body: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const listener = (reason: unknown) => seen.push(reason instanceof Error ? reason.message : String(reason));
  process.on("unhandledRejection", listener);
  try {
    await body();
    await new Promise((resolve) => setTimeout(resolve, 300));
  } finally {
    process.off("unhandledRejection", listener);
  }
  return seen;
}

async function expectExactObject(key: string, bytes: Buffer) {
  const listed = await listObjects(client, BUCKET, key);
  expect(listed.filter((o) => o.key === key).map((o) => o.size)).toEqual([bytes.length]);
  expect((await getObject(client, BUCKET, key)).equals(bytes), key).toBe(true);
}

describe("S3DataPlane against MinIO", () => {
  it("PUTs keys with special characters exactly, and GETs and HEADs them back", async () => {
    const bodies = new Map(SPECIAL_KEYS.map((key, i) => [key, randomBytes(1000 + 137 * i)]));
    for (const [key, body] of bodies) await data.putObject(key, body, signal());

    // Exactly these keys, no more (a wrongly encoded key would show up under another name).
    const all = await listObjects(client, BUCKET);
    expect(all.map((o) => o.key).sort()).toEqual([...SPECIAL_KEYS].sort());
    for (const [key, body] of bodies) {
      await expectExactObject(key, body);
      let firstBytes = 0;
      expect(await data.getObject(key, undefined, signal(), { onFirstBodyByte: () => firstBytes++ })).toBe(
        body.length,
      );
      expect(firstBytes, key).toBe(1);
      expect(await data.headObject(key, signal())).toBe(body.length);
    }
  });

  it("GETs byte ranges", async () => {
    const key = "ranged/ü+ key.bin";
    await data.putObject(key, randomBytes(10_000), signal());
    const get = (range: string) => data.getObject(key, range, signal());
    expect(await get("bytes=0-0")).toBe(1);
    expect(await get("bytes=100-1099")).toBe(1000);
    expect(await get("bytes=9000-")).toBe(1000);
    expect(await get("bytes=-50")).toBe(50);
    expect(await get("bytes=9990-20000")).toBe(10);
  });

  it("uploads parts of a multipart upload that the SDK creates and completes", async () => {
    const key = "multi part/ü+=%~.bin";
    const created = await client.send(new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: key }));
    const uploadId = created.UploadId!;
    const parts = [randomBytes(5 * MiB), randomBytes(5 * MiB + 1), randomBytes(123_457)];
    const etags: string[] = [];
    for (const [i, part] of parts.entries())
      etags.push(await data.uploadPart(key, uploadId, i + 1, part, signal()));
    expect(etags.every((etag) => /^"?[0-9a-f]{32}"?$/.test(etag))).toBe(true);
    await client.send(
      new CompleteMultipartUploadCommand({
        Bucket: BUCKET,
        Key: key,
        UploadId: uploadId,
        MultipartUpload: { Parts: etags.map((ETag, i) => ({ ETag, PartNumber: i + 1 })) },
      }),
    );
    await expectExactObject(key, Buffer.concat(parts));
  });

  it("streams a Payload byte-exact (over 1 MiB, not a multiple of it)", async () => {
    const key = "streamed/payload with space.bin";
    // Large enough that the socket pushes back, so the producer really refills buffers still being sent.
    const size = 48 * MiB + 12_345;
    const payload = makePayload("s3-data-plane-test", size, "random");
    await data.putObject(key, payload, signal());
    await expectExactObject(key, payload.slice(0, size));
    expect(await data.headObject(key, signal())).toBe(size);
    expect(await data.getObject(key, undefined, signal())).toBe(size);
  });

  it("sends concurrent requests over several connections", async () => {
    const bodies = Array.from(
      { length: 8 },
      (_, i) => [`concurrent/${i} ü+.bin`, randomBytes(50_000 + i)] as const,
    );
    await Promise.all(bodies.map(([key, body]) => data.putObject(key, body, signal())));
    const sizes = await Promise.all(bodies.map(([key]) => data.getObject(key, undefined, signal())));
    expect(sizes).toEqual(bodies.map(([, body]) => body.length));
    for (const [key, body] of bodies) await expectExactObject(key, body);
  });

  it("DELETEs an object", async () => {
    const key = "to delete/ü+=.bin";
    await data.putObject(key, randomBytes(100), signal());
    expect(await listObjects(client, BUCKET, key)).toHaveLength(1);
    await data.deleteObject(key, signal());
    expect(await listObjects(client, BUCKET, key)).toEqual([]);
    await expect(client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }))).rejects.toMatchObject({
      name: "NotFound",
    });
  });

  it("raises a missing key's errors like the SDK: NoSuchKey on GET, NotFound on HEAD, both 404", async () => {
    const key = "does/not exist+.bin";
    await expect(data.getObject(key, undefined, signal())).rejects.toMatchObject({
      name: "NoSuchKey",
      $metadata: { httpStatusCode: 404 },
    });
    await expect(data.headObject(key, signal())).rejects.toMatchObject({
      name: "NotFound",
      $metadata: { httpStatusCode: 404 },
    });
    // The SDK says the same.
    await expect(client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }))).rejects.toMatchObject({
      name: "NotFound",
      $metadata: { httpStatusCode: 404 },
    });
    // And the connection is still good after the error documents.
    await data.putObject("after-errors", Buffer.from("ok"), signal());
    await expectExactObject("after-errors", Buffer.from("ok"));
  });

  it("raises a wrong secret key as a 403 named by the S3 code, also for a streamed upload", async () => {
    const key = "wrong-secret/target.bin";
    await data.putObject(key, Buffer.from("existing"), signal());
    const wrong = new S3DataPlane(
      connection,
      async () => ({ accessKeyId: server.accessKey, secretAccessKey: `${server.secretKey}x` }),
      OPTIONS,
    );
    try {
      const denied = { name: "SignatureDoesNotMatch", $metadata: { httpStatusCode: 403 } };
      await expect(wrong.getObject(key, undefined, signal())).rejects.toMatchObject(denied);
      await expect(wrong.putObject(key, Buffer.from("overwritten"), signal())).rejects.toMatchObject(denied);
      await expect(wrong.deleteObject(key, signal())).rejects.toMatchObject(denied);
      // MinIO answers before reading the body: the streamed upload ends early, with no stray errors.
      const big = makePayload("denied", 24 * MiB + 1, "random");
      const stray = await unhandledRejectionsDuring(() =>
        expect(wrong.putObject("wrong-secret/big.bin", big, signal())).rejects.toMatchObject(denied),
      );
      expect(stray).toEqual([]);
    } finally {
      wrong.destroy();
    }
    // Nothing was written or deleted.
    await expectExactObject(key, Buffer.from("existing"));
    expect(await listObjects(client, BUCKET, "wrong-secret/big.bin")).toEqual([]);
  });
});

describe("S3DataPlane against a local stub server", () => {
  it("aborts a streamed upload in flight cleanly: the abort reason, no unhandled rejections", async () => {
    // Takes the request and never reads its body nor answers: the upload is stuck mid-body.
    let gotRequest = false;
    const stub = http.createServer((req) => {
      gotRequest = true;
      req.pause();
    });
    await new Promise<void>((resolve) => stub.listen(0, "127.0.0.1", resolve));
    const plane = new S3DataPlane(
      {
        endpoint: `http://127.0.0.1:${(stub.address() as AddressInfo).port}`,
        region: "us-east-1",
        bucket: "stub",
        forcePathStyle: true,
      },
      async () => ({ accessKeyId: "id", secretAccessKey: "secret" }),
      OPTIONS,
    );
    try {
      const controller = new AbortController();
      const reason = new Error("run cancelled");
      const stray = await unhandledRejectionsDuring(async () => {
        const upload = plane.putObject("k", makePayload("abort", 64 * MiB, "random"), controller.signal);
        const outcome = upload.then(
          () => undefined,
          (error: unknown) => error,
        );
        while (!gotRequest) await new Promise((resolve) => setTimeout(resolve, 10));
        controller.abort(reason);
        expect(await outcome).toBe(reason);
      });
      expect(stray).toEqual([]);
    } finally {
      plane.destroy();
      stub.closeAllConnections();
      await new Promise((resolve) => stub.close(resolve));
    }
  });
});
