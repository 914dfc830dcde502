/**
 * The S3 engine's operations: what one worker does for one entry of the call sequence. The same code runs
 * in the main thread and in each worker thread (thread.ts), each with its own connections.
 */
import { NETWORK_TIMEOUTS } from "../../platform/timeouts.js";
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  ListObjectsV2Command,
  S3Client,
} from "@aws-sdk/client-s3";
import { fill, maxConcurrency, opsOf, type Execute, type Indexed } from "../load/load.js";
import { makePayload, warmPayloads, type Payload } from "../load/payload.js";
import { partsOf, type SdkData } from "../../emit/sdk-format.js";
import { largestSize, sizeAt, type SizeParam } from "../../rows/sizes.js";
import type { S3Op, S3Repetition } from "./sdk-schema.js";
import type { Progress } from "../http/http1.js";
import { warmStreams } from "../http/payload-body.js";
import { makeS3Client, type S3Connection } from "../../targets/s3/client.js";
import { S3DataPlane } from "./data-plane.js";

/** Bodies up to this size are sent as one buffer; larger ones are streamed from the payload generator. */
const BUFFERED_BODY = 8 * 2 ** 20;

/** What a thread needs to run operations: serializable, so it can be handed to a worker thread. */
export interface S3Wiring {
  connection: S3Connection;
  /** The run's key prefix (run id filled in). */
  prefix: string;
  runId: string;
  data: SdkData;
  /** Connections to keep: operations in flight times their part queue. */
  sockets: number;
  /** Request bodies streamed at once at most (PutObjects larger than BUFFERED_BODY in flight). */
  streams: number;
}

/** The most request bodies a repetition streams at once: its PutObjects too large for one buffer. */
export function streamsOf(r: S3Repetition): number {
  const streamed = opsOf(r).some((op) => op.op === "PutObject" && largestSize(op.size) > BUFFERED_BODY);
  return streamed ? maxConcurrency(r) : 0;
}

/** The clients of one thread: the SDK for the control plane, benchspec's own for the timed requests. */
export interface S3Clients {
  /** Control plane: multipart create/complete/abort, listings, batch deletes. */
  client: S3Client;
  /** Data plane: the timed requests. */
  data: S3DataPlane;
  destroy(): void;
}

export function openClients(wiring: S3Wiring): S3Clients {
  const client = makeS3Client(wiring.connection, wiring.sockets);
  const data = new S3DataPlane(wiring.connection, () => client.config.credentials(), NETWORK_TIMEOUTS);
  return {
    client,
    data,
    destroy() {
      client.destroy();
      data.destroy();
      spares.clear();
      spareBytes = 0;
    },
  };
}

/**
 * Before the timed window: the payload generator, the buffers of streamed bodies, and the connections the
 * operations will use (data.warm).
 */
export async function warmClients(wiring: S3Wiring, { data }: S3Clients, signal: AbortSignal) {
  warmPayloads();
  warmStreams(wiring.streams);
  await data.warm(wiring.sockets, signal);
}

export function s3Operations(wiring: S3Wiring, { client, data }: S3Clients): Execute<S3Op> {
  const { prefix, runId } = wiring;
  const Bucket = wiring.connection.bucket;
  const payloadOf = (op: { seed: string; size: SizeParam }, item: Indexed<unknown>): Payload => {
    const seed = fill(op.seed, item.index) + (item.pass > 0 ? `/p${item.pass}` : "");
    return makePayload(`${runId}|${seed}`, sizeAt(op.size, item.index), wiring.data);
  };
  return async (item, _worker, mark, signal) => {
    const { op } = item;
    const progress: Progress = { onFirstBodyByte: mark.firstByte, onBodyBytes: mark.moved };
    const key = () => prefix + fill("key" in op ? op.key : "", item.index);
    const size = () => sizeAt((op as { size: SizeParam }).size, item.index);
    switch (op.op) {
      case "PutObject": {
        const payload = payloadOf(op, item);
        if (payload.size <= BUFFERED_BODY)
          await withBuffer(payload.size, (buffer) =>
            data.putObject(key(), payload.slice(0, payload.size, buffer), signal, progress),
          );
        else await data.putObject(key(), payload, signal, progress);
        return payload.size;
      }
      case "MultipartUpload": {
        const payload = payloadOf(op, item);
        const { partSize, queue } = op.calls[1];
        const parts = partsOf(payload.size, partSize, queue);
        return multipart(client, data, Bucket, key(), payload, parts, signal, progress);
      }
      case "GetObject": {
        const Key = key();
        const expected = size();
        let total = 0;
        if (!op.ranges) total = await data.getObject(Key, undefined, signal, progress);
        else {
          const { partSize, parts, queue } = partsOf(expected, op.ranges.partSize, op.ranges.queue);
          await inParallel(parts, queue, async (part) => {
            const range = `bytes=${part * partSize}-${Math.min(expected, (part + 1) * partSize) - 1}`;
            // Not `total += await …`: that reads `total` before awaiting, and parts in flight together
            // would overwrite each other's sums.
            const bytes = await data.getObject(Key, range, signal, progress);
            total += bytes;
          });
        }
        if (total !== expected) throw new Error(`GetObject ${Key}: ${total} bytes, expected ${expected}`);
        return total;
      }
      case "HeadObject": {
        const [length, expected] = [await data.headObject(key(), signal), size()];
        if (length !== expected) throw new Error(`HeadObject: size ${length}, expected ${expected}`);
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
  progress: Progress,
): Promise<number> {
  const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket, Key }), { abortSignal });
  try {
    const etags: string[] = [];
    // Parts are generated when their turn comes: memory stays at queue × partSize per object.
    await inParallel(parts.parts, parts.queue, async (index) => {
      const size = index === parts.parts - 1 ? parts.lastPartSize : parts.partSize;
      await withBuffer(size, async (buffer) => {
        const body = payload.slice(index * parts.partSize, size, buffer);
        etags[index] = await data.uploadPart(Key, UploadId!, index + 1, body, abortSignal, progress);
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
 * every byte, so nothing references it any more; after a failure it is left to the GC. Buffers come in
 * power-of-two capacities and a request takes the smallest spare that holds its body, so drawn sizes share
 * them; the spares never exceed MAX_SPARE_BYTES (only the bytes a body filled are ever resident).
 */
const spares = new Map<number, Buffer[]>();
const MAX_SPARE_BYTES = 256 * 2 ** 20;
let spareBytes = 0;

async function withBuffer(size: number, use: (buffer: Buffer) => Promise<void>): Promise<void> {
  const capacity = 2 ** Math.ceil(Math.log2(Math.max(1, size)));
  let buffer: Buffer | undefined;
  for (let c = capacity; !buffer && c <= MAX_SPARE_BYTES; c *= 2) buffer = spares.get(c)?.pop();
  if (buffer) spareBytes -= buffer.length;
  else buffer = Buffer.allocUnsafe(capacity);
  await use(buffer.subarray(0, size));
  if (spareBytes + buffer.length > MAX_SPARE_BYTES) return;
  const list = spares.get(buffer.length) ?? [];
  list.push(buffer);
  spares.set(buffer.length, list);
  spareBytes += buffer.length;
}

/** Runs task(0…count-1) with at most `limit` in flight. */
async function inParallel(count: number, limit: number, task: (index: number) => Promise<void>) {
  let next = 0;
  const lane = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, lane));
}
