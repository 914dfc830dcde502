/**
 * The S3 engine: executes the case's compiled call sequence (sdk/<case>.json) with @aws-sdk/client-s3.
 * Per repetition: setup (unmeasured uploads), the measured group, then cleanup — always, also after a
 * failure or Ctrl-C. Only keys under the run's own prefix are ever written or deleted.
 */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  type S3Client,
} from "@aws-sdk/client-s3";
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
import { CONNECT_TIMEOUT_MS, REQUEST_TIMEOUT_MS, makeS3Client, type S3Connection } from "./client.js";
import { S3DataPlane } from "./data-plane.js";

/** Bodies up to this size are sent as one buffer; larger ones are streamed from the payload generator. */
const BUFFERED_BODY = 8 * 2 ** 20;

interface Session {
  doc: S3SdkDocument;
  /** Control plane: multipart create/complete/abort, listings, batch deletes. */
  client: S3Client;
  /** Data plane: the timed requests. */
  data: S3DataPlane;
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
    const client = makeS3Client(connection, sockets);
    sessions.set(c.id, {
      doc,
      client,
      data: new S3DataPlane(connection, () => client.config.credentials(), {
        connectTimeoutMs: CONNECT_TIMEOUT_MS,
        idleTimeoutMs: REQUEST_TIMEOUT_MS,
      }),
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
      session.data.destroy();
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
  const { client, data, connection, prefix, doc } = session;
  const Bucket = connection.bucket;
  const payloadOf = (op: { seed: string; size: number }, item: Indexed<unknown>): Payload => {
    const seed = fill(op.seed, item.index) + (item.pass > 0 ? `/p${item.pass}` : "");
    return makePayload(`${ctx.runId}|${seed}`, op.size, doc.data);
  };
  const signal = ctx.signal;
  return async (item, _worker, mark) => {
    const { op } = item;
    const key = () => prefix + fill("key" in op ? op.key : "", item.index);
    switch (op.op) {
      case "PutObject": {
        const payload = payloadOf(op, item);
        if (op.size <= BUFFERED_BODY)
          await withBuffer(op.size, (buffer) =>
            data.putObject(key(), payload.slice(0, op.size, buffer), signal),
          );
        else await data.putObject(key(), payload, signal);
        return op.size;
      }
      case "MultipartUpload":
        return multipart(client, data, Bucket, key(), payloadOf(op, item), op.calls[1], signal);
      case "GetObject": {
        const Key = key();
        const firstByte = () => mark.firstByte();
        let total = 0;
        if (!op.ranges) total = await data.getObject(Key, undefined, firstByte, signal);
        else {
          const { partSize, parts, queue } = op.ranges;
          await inParallel(parts, queue, async (part) => {
            const range = `bytes=${part * partSize}-${Math.min(op.size, (part + 1) * partSize) - 1}`;
            // Not `total += await …`: that reads `total` before awaiting, and parts in flight together
            // would overwrite each other's sums.
            const bytes = await data.getObject(Key, range, firstByte, signal);
            total += bytes;
          });
        }
        if (total !== op.size) throw new Error(`GetObject ${Key}: ${total} bytes, expected ${op.size}`);
        return total;
      }
      case "HeadObject": {
        const size = await data.headObject(key(), signal);
        if (size !== op.size) throw new Error(`HeadObject: size ${size}, expected ${op.size}`);
        return 0;
      }
      case "DeleteObject":
        await data.deleteObject(key(), signal);
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
            { abortSignal: signal },
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

async function multipart(
  client: S3Client,
  data: S3DataPlane,
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
        const body = payload.slice(index * parts.partSize, size, buffer);
        etags[index] = await data.uploadPart(Key, UploadId!, index + 1, body, abortSignal);
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
