/**
 * Removing what a run left in a store: every key under one of its own prefixes, and the incomplete multipart
 * uploads there. Only keys under the prefix are ever listed for deletion or aborted.
 */
import {
  AbortMultipartUploadCommand,
  DeleteObjectsCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  type S3Client,
} from "@aws-sdk/client-s3";
import { setTimeout as delay } from "node:timers/promises";
import type { TargetOf } from "../../spec/target-kinds.js";
import type { Leftover } from "../types.js";
import { makeS3Client } from "./client.js";
import { isRunKeyPrefix } from "./keys.js";
import { externalConnection } from "./prepare.js";

/** How long removing one prefix may take before it is given up (a store that does not answer). */
const REMOVE_TIMEOUT_MS = 60_000;

export async function removeS3Leftover(
  target: TargetOf<"s3">,
  leftover: Leftover,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  if (leftover.kind !== "keys" || !isRunKeyPrefix(leftover.prefix))
    throw new Error(`${JSON.stringify(leftover)} is not a prefix of a run's keys`);
  const connection = { ...externalConnection(target, env), bucket: leftover.bucket };
  const client = makeS3Client(connection, 1);
  const signal = AbortSignal.timeout(REMOVE_TIMEOUT_MS);
  try {
    await deleteKeysUnder(client, leftover.bucket, leftover.prefix, signal);
    await abortUploadsUnder(client, leftover.bucket, leftover.prefix, signal);
  } finally {
    client.destroy();
  }
}

async function deleteKeysUnder(client: S3Client, bucket: string, prefix: string, signal: AbortSignal) {
  for (;;) {
    // Listed from the start each time: the keys of the previous page are gone.
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }), {
      abortSignal: signal,
    });
    const keys = (page.Contents ?? []).flatMap((o) => (o.Key?.startsWith(prefix) ? [{ Key: o.Key }] : []));
    if (keys.length === 0) return;
    const result = await client.send(
      new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys, Quiet: true } }),
      { abortSignal: signal },
    );
    if (result.Errors?.length)
      throw new Error(`${result.Errors.length} objects could not be deleted (${result.Errors[0]!.Code})`);
  }
}

/**
 * Aborts the incomplete multipart uploads under a prefix of ours (never anything outside it). A
 * CreateMultipartUpload cut off by Ctrl-C may still be completing on the server while a listing runs, so
 * the bucket is listed again after a pause until a listing finds none of ours (bounded by `signal`) — and,
 * after an interrupt (`late`), at least once after a pause even when the first finds none: on a loaded
 * machine the cut-off upload appeared after the first listing.
 */
export async function abortUploadsUnder(
  client: S3Client,
  bucket: string,
  prefix: string,
  signal: AbortSignal,
  late = false,
): Promise<void> {
  let aborted = await abortListedUploads(client, bucket, prefix, signal);
  for (let pass = 0; aborted > 0 || (late && pass < LATE_CREATE_PASSES); pass++) {
    await delay(late ? LATE_CREATE_PAUSE_MS : LATE_UPLOAD_PAUSE_MS, undefined, { signal });
    aborted = await abortListedUploads(client, bucket, prefix, signal);
  }
}

const LATE_UPLOAD_PAUSE_MS = 300;
/**
 * After an interrupt: time for a cut-off CreateMultipartUpload to complete on the server, looked for each
 * second for 8 s (a loaded MinIO completed one more than 1 s, once more than 2 s and once more than 4 s
 * after the client gave it up).
 */
const LATE_CREATE_PAUSE_MS = 1000;
const LATE_CREATE_PASSES = 8;

/** One pass over the bucket's uploads: aborts ours, returns how many. */
async function abortListedUploads(
  client: S3Client,
  bucket: string,
  prefix: string,
  signal: AbortSignal,
): Promise<number> {
  let aborted = 0;
  let KeyMarker: string | undefined;
  let UploadIdMarker: string | undefined;
  do {
    // No Prefix in the request: MinIO answers a prefixed ListMultipartUploads only with uploads whose key
    // equals the prefix, so a prefix listing finds none of ours there. The whole bucket's uploads are listed
    // and filtered here instead (right on every store; only a bucket with many foreign uploads costs pages).
    const page = await client.send(
      new ListMultipartUploadsCommand({ Bucket: bucket, KeyMarker, UploadIdMarker }),
      {
        abortSignal: signal,
      },
    );
    for (const upload of page.Uploads ?? []) {
      if (!upload.Key?.startsWith(prefix)) continue;
      await client.send(
        new AbortMultipartUploadCommand({ Bucket: bucket, Key: upload.Key, UploadId: upload.UploadId }),
        { abortSignal: signal },
      );
      aborted++;
    }
    KeyMarker = page.IsTruncated ? page.NextKeyMarker : undefined;
    UploadIdMarker = page.IsTruncated ? page.NextUploadIdMarker : undefined;
  } while (KeyMarker);
  return aborted;
}
