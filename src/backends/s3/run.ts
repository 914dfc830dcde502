/**
 * The S3 engine: executes the case's compiled call sequence (sdk/<case>.json) with @aws-sdk/client-s3.
 * Per repetition: setup (unmeasured uploads), the measured group, then cleanup — always, also after a
 * failure or Ctrl-C. Only keys under the run's own prefix are ever written or deleted.
 */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  UploadPartCommand,
  type S3Client,
} from "@aws-sdk/client-s3";
import { Readable } from "node:stream";

import { fill, runRepetition, type Execute, type Indexed } from "../load.js";
import { makePayload, type Payload } from "../payload.js";
import {
  DELETE_BATCH,
  RUN_ID_PLACEHOLDER,
  S3SdkDocumentSchema,
  readSdkDocument,
  type S3Op,
  type S3Repetition,
  type S3SdkDocument,
} from "../sdk-format.js";
import type { ExecContext, Executor, Measurement } from "../types.js";
import { makeS3Client, type S3Connection } from "./client.js";

/** Bodies up to this size are sent as one buffer; larger ones are streamed from the payload generator. */
const BUFFERED_BODY = 8 * 2 ** 20;

interface Session {
  doc: S3SdkDocument;
  client: S3Client;
  connection: S3Connection;
  prefix: string;
}

const sessions = new Map<string, Session>();

export const s3Executor: Executor = {
  tools: [],

  async prepare(c, ctx) {
    const connection = ctx.target.s3;
    if (!connection) throw new Error(`target "${c.target}" has no S3 connection`);
    const doc = await readSdkDocument(S3SdkDocumentSchema, ctx.artifactsDir, c.id);
    const sockets = Math.max(...doc.repetitions.map((r) => maxInFlight(r)));
    sessions.set(c.id, {
      doc,
      client: makeS3Client(connection, sockets),
      connection,
      prefix: doc.prefix.replace(RUN_ID_PLACEHOLDER, ctx.runId),
    });
  },

  async repetition(c, repetition, warmup, ctx): Promise<Measurement> {
    const session = sessions.get(c.id)!;
    const plan = session.doc.repetitions.find((r) => r.repetition === repetition && r.warmup === warmup);
    if (!plan) throw new Error(`the call sequence has no ${warmup ? "warm-up" : "repetition"} ${repetition}`);
    return runRepetition(plan, executor(session, ctx), ctx.signal, (signal) =>
      cleanup(session, plan, signal),
    );
  },

  async finish(c, ctx) {
    const session = sessions.get(c.id);
    if (!session) return;
    sessions.delete(c.id);
    spares.clear();
    try {
      // The safety net after Ctrl-C or a crash mid-upload: nothing incomplete stays behind under our prefix.
      await abortUploads(session, session.prefix, ctx.signal);
    } finally {
      session.client.destroy();
    }
  },
};

function maxInFlight(r: S3Repetition): number {
  const concurrency = Math.max(
    r.measured.concurrency,
    ...(r.measured.autotune?.rounds ?? []),
    r.setup?.concurrency ?? 1,
  );
  const queues = [...r.measured.ops, ...(r.setup?.ops ?? [])].map((op) =>
    op.op === "MultipartUpload" ? op.calls[1].queue : op.op === "GetObject" ? (op.ranges?.queue ?? 1) : 1,
  );
  return concurrency * Math.max(1, ...queues);
}

function executor(session: Session, ctx: ExecContext): Execute<S3Op> {
  const { client, connection, prefix, doc } = session;
  const Bucket = connection.bucket;
  const payloadOf = (op: { seed: string; size: number }, item: Indexed<unknown>): Payload => {
    const seed = fill(op.seed, item.index) + (item.pass > 0 ? `/p${item.pass}` : "");
    return makePayload(`${ctx.runId}|${seed}`, op.size, doc.data);
  };
  const abortSignal = ctx.signal;
  return async (item, _worker, mark) => {
    const { op } = item;
    switch (op.op) {
      case "PutObject": {
        const payload = payloadOf(op, item);
        if (op.size <= BUFFERED_BODY) {
          const Key = prefix + fill(op.key, item.index);
          await withBuffer(op.size, async (buffer) => {
            const Body = payload.slice(0, op.size, buffer);
            await client.send(new PutObjectCommand({ Bucket, Key, Body, ContentLength: op.size }), {
              abortSignal,
            });
          });
          return op.size;
        }
        const Body = Readable.from(payload.chunks());
        await client.send(
          new PutObjectCommand({
            Bucket,
            Key: prefix + fill(op.key, item.index),
            Body,
            ContentLength: op.size,
          }),
          { abortSignal },
        );
        return op.size;
      }
      case "MultipartUpload":
        return multipart(
          client,
          Bucket,
          prefix + fill(op.key, item.index),
          payloadOf(op, item),
          op.calls[1],
          abortSignal,
        );
      case "GetObject": {
        const Key = prefix + fill(op.key, item.index);
        let total = 0;
        if (!op.ranges) total = await read(client, { Bucket, Key }, mark, abortSignal);
        else {
          const { partSize, parts, queue } = op.ranges;
          await inParallel(parts, queue, async (part) => {
            const Range = `bytes=${part * partSize}-${Math.min(op.size, (part + 1) * partSize) - 1}`;
            // Not `total += await read(…)`: that reads `total` before awaiting, and parts in flight together
            // would overwrite each other's sums.
            const bytes = await read(client, { Bucket, Key, Range }, mark, abortSignal);
            total += bytes;
          });
        }
        if (total !== op.size) throw new Error(`GetObject ${Key}: ${total} bytes, expected ${op.size}`);
        return total;
      }
      case "HeadObject": {
        const head = await client.send(
          new HeadObjectCommand({ Bucket, Key: prefix + fill(op.key, item.index) }),
          { abortSignal },
        );
        if (head.ContentLength !== op.size)
          throw new Error(`HeadObject: size ${head.ContentLength}, expected ${op.size}`);
        return 0;
      }
      case "DeleteObject":
        await client.send(new DeleteObjectCommand({ Bucket, Key: prefix + fill(op.key, item.index) }), {
          abortSignal,
        });
        return 0;
      case "ListObjectsV2": {
        let keys = 0;
        let ContinuationToken: string | undefined;
        do {
          const page = await client.send(
            new ListObjectsV2Command({
              Bucket,
              Prefix: prefix + op.prefix,
              MaxKeys: op.maxKeys,
              ContinuationToken,
            }),
            { abortSignal },
          );
          keys += page.KeyCount ?? 0;
          ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
        } while (ContinuationToken);
        if (keys !== op.expectKeys) throw new Error(`ListObjectsV2: ${keys} keys, expected ${op.expectKeys}`);
        return 0;
      }
    }
  };
}

/** Reads a body to its end (a body left unread would hold its socket), noting the first byte. */
async function read(
  client: S3Client,
  input: { Bucket: string; Key: string; Range?: string },
  mark: { firstByte(): void },
  abortSignal: AbortSignal,
): Promise<number> {
  const response = await client.send(new GetObjectCommand(input), { abortSignal });
  const body = response.Body as Readable;
  let bytes = 0;
  try {
    for await (const chunk of body) {
      if (bytes === 0) mark.firstByte();
      bytes += (chunk as Buffer).length;
    }
  } finally {
    body.destroy();
  }
  return bytes;
}

async function multipart(
  client: S3Client,
  Bucket: string,
  Key: string,
  payload: Payload,
  parts: { partSize: number; parts: number; lastPartSize: number; queue: number },
  abortSignal: AbortSignal,
): Promise<number> {
  const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket, Key }), { abortSignal });
  try {
    const etags: string[] = [];
    // Parts are generated when their turn comes: memory stays at queue × partSize per object.
    await inParallel(parts.parts, parts.queue, async (index) => {
      const size = index === parts.parts - 1 ? parts.lastPartSize : parts.partSize;
      await withBuffer(size, async (buffer) => {
        const Body = payload.slice(index * parts.partSize, size, buffer);
        const { ETag } = await client.send(
          new UploadPartCommand({ Bucket, Key, UploadId, PartNumber: index + 1, Body, ContentLength: size }),
          { abortSignal },
        );
        etags[index] = ETag!;
      });
    });
    await client.send(
      new CompleteMultipartUploadCommand({
        Bucket,
        Key,
        UploadId,
        MultipartUpload: { Parts: etags.map((ETag, i) => ({ ETag, PartNumber: i + 1 })) },
      }),
      { abortSignal },
    );
    return payload.size;
  } catch (error) {
    await client
      .send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId }), {
        abortSignal: AbortSignal.timeout(30_000),
      })
      .catch(() => {});
    throw error;
  }
}

/**
 * Body buffers are reused: a fresh multi-MiB buffer per request costs page faults and GC several times the
 * cost of filling it (npm run bench: makePayload into fresh 8 MiB buffers ~0.8 GB/s, into reused ones several
 * GB/s). A buffer goes back to the spares only after its request succeeded — the server has then received
 * every byte, so nothing references it any more; after a failure it is left to the GC. The spares never
 * exceed what was in flight at once, so memory stays bounded by concurrency × queue × part size.
 */
const spares = new Map<number, Buffer[]>();

async function withBuffer(size: number, use: (buffer: Buffer) => Promise<void>): Promise<void> {
  const buffer = spares.get(size)?.pop() ?? Buffer.allocUnsafe(size);
  await use(buffer);
  const list = spares.get(size) ?? [];
  list.push(buffer);
  spares.set(size, list);
}

/** Runs task(0…count-1) with at most `limit` in flight. */
async function inParallel(count: number, limit: number, task: (index: number) => Promise<void>) {
  let next = 0;
  const lane = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, lane));
}

async function cleanup(session: Session, plan: S3Repetition, signal: AbortSignal) {
  const { client, connection, prefix } = session;
  for (const step of plan.cleanup) {
    if (step.op === "AbortMultipartUploads") {
      await abortUploads(session, prefix + step.prefix, signal);
      continue;
    }
    const keys = Array.from({ length: step.count }, (_, i) => prefix + fill(step.key, step.from + i));
    for (let i = 0; i < keys.length; i += DELETE_BATCH) {
      const batch = keys.slice(i, i + DELETE_BATCH);
      const result = await client.send(
        new DeleteObjectsCommand({
          Bucket: connection.bucket,
          Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
        }),
        { abortSignal: signal },
      );
      if (result.Errors?.length)
        throw new Error(
          `cleanup: ${result.Errors.length} objects could not be deleted (${result.Errors[0]!.Code})`,
        );
    }
  }
}

/** Aborts the incomplete multipart uploads under a prefix of ours (never anything outside it). */
async function abortUploads(session: Session, prefix: string, signal: AbortSignal) {
  const { client, connection } = session;
  let KeyMarker: string | undefined;
  let UploadIdMarker: string | undefined;
  do {
    // No Prefix in the request: MinIO answers a prefixed ListMultipartUploads only with uploads whose key
    // equals the prefix, so a prefix listing finds none of ours there. The whole bucket's uploads are listed
    // and filtered here instead (right on every store; only a bucket with many foreign uploads costs pages).
    const page = await client.send(
      new ListMultipartUploadsCommand({ Bucket: connection.bucket, KeyMarker, UploadIdMarker }),
      { abortSignal: signal },
    );
    for (const upload of page.Uploads ?? []) {
      if (!upload.Key?.startsWith(prefix)) continue;
      await client.send(
        new AbortMultipartUploadCommand({
          Bucket: connection.bucket,
          Key: upload.Key,
          UploadId: upload.UploadId,
        }),
        { abortSignal: signal },
      );
    }
    KeyMarker = page.IsTruncated ? page.NextKeyMarker : undefined;
    UploadIdMarker = page.IsTruncated ? page.NextUploadIdMarker : undefined;
  } while (KeyMarker);
}
