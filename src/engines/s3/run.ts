/**
 * The S3 engine: executes the case's compiled call sequence (sdk/<case>.json); the operations are in
 * ops.ts (timed requests over benchspec's own HTTP client, the control plane through @aws-sdk/client-s3),
 * in this thread or in worker threads (`threads`). Per repetition: setup (unmeasured uploads), the measured
 * group, then cleanup — always, also after a failure or Ctrl-C. Only keys under the run's own prefix are
 * ever written or deleted.
 */
import { DeleteObjectsCommand } from "@aws-sdk/client-s3";
import { armCallSequence, inThisThread, maxConcurrency, fill, opsOf, type LoadDriver } from "../load/load.js";
import { RUN_ID_PLACEHOLDER, readSdkDocument } from "../../emit/sdk-format.js";
import {
  DELETE_BATCH,
  S3SdkDocumentSchema,
  type S3Op,
  type S3Repetition,
  type S3SdkDocument,
} from "./sdk-schema.js";
import { LoadThreads, resolveThreads } from "../load/threads.js";
import type { Executor } from "../types.js";
import type { S3Connection } from "../../targets/s3/client.js";
import { preparedAs } from "../../targets/index.js";
import { abortUploadsUnder } from "../../targets/s3/leftovers.js";
import { openClients, s3Operations, streamsOf, warmClients, type S3Clients, type S3Wiring } from "./ops.js";
import { maxOf } from "../../rows/stats.js";

interface Session {
  doc: S3SdkDocument;
  connection: S3Connection;
  prefix: string;
  /** This thread's clients: cleanup, and the operations themselves when the case runs in one thread. */
  clients: S3Clients;
  /** Where the operations run: this thread, or worker threads each with their own clients. */
  driver: LoadDriver<S3Op>;
  threads?: LoadThreads<S3Op>;
  /** Why a repetition's cleanup did not finish (an interrupt's deadline, a server that stopped answering). */
  unfinished?: string;
  /** Whether Ctrl-C cut off a repetition: a CreateMultipartUpload it cut off may complete on the server late. */
  interrupted?: boolean;
}

const sessions = new Map<string, Session>();

export const s3Executor: Executor = {
  tunes: true,
  async prepare(c, ctx) {
    const { connection } = preparedAs(ctx.target, "s3");
    const doc = await readSdkDocument(S3SdkDocumentSchema, ctx.artifactsDir, c.id);
    const concurrency = maxOf(doc.repetitions.map((r) => maxConcurrency(r)));
    const threadCount = resolveThreads(c.params.threads ?? "auto", concurrency);
    const wiring: S3Wiring = {
      connection,
      prefix: doc.prefix.replace(RUN_ID_PLACEHOLDER, ctx.runId),
      runId: ctx.runId,
      data: doc.data,
      sockets: maxOf(doc.repetitions.map((r) => maxInFlight(r))),
      streams: maxOf(doc.repetitions.map(streamsOf)),
    };
    const clients = openClients(wiring);
    const session: Session = {
      doc,
      connection,
      prefix: wiring.prefix,
      clients,
      driver: inThisThread(s3Operations(wiring, clients), (signal) => warmClients(wiring, clients, signal)),
    };
    sessions.set(c.id, session);
    if (threadCount > 1) {
      session.threads = await LoadThreads.start<S3Op>(threadCount, {
        module: new URL(import.meta.url.endsWith(".ts") ? "./thread.ts" : "./thread.js", import.meta.url)
          .href,
        input: {
          ...wiring,
          sockets: Math.ceil(wiring.sockets / threadCount),
          streams: Math.ceil(wiring.streams / threadCount),
        },
      });
      session.driver = session.threads;
    }
  },

  /** The setup's uploads before the start; the measured group at go. */
  async arm(c, repetition, warmup, ctx) {
    const session = sessions.get(c.id)!;
    const plan = session.doc.repetitions.find((r) => r.repetition === repetition && r.warmup === warmup);
    if (!plan) throw new Error(`the call sequence has no ${warmup ? "warm-up" : "repetition"} ${repetition}`);
    const noteInterrupt = () => (session.interrupted ||= ctx.signal.aborted);
    try {
      const armed = await armCallSequence(
        plan,
        session.driver,
        ctx.signal,
        (signal) =>
          cleanup(session, plan, signal).catch((error: Error) => {
            session.unfinished = error.message;
            throw error;
          }),
        ctx.hostShare,
      );
      return { ...armed, go: () => armed.go().finally(noteInterrupt) };
    } finally {
      noteInterrupt();
    }
  },

  async finish(c, ctx) {
    const session = sessions.get(c.id);
    if (!session) return;
    sessions.delete(c.id);
    try {
      await session.threads?.close();
      // The safety net after Ctrl-C or a crash mid-upload: nothing incomplete stays behind under our prefix.
      await abortUploads(session, session.prefix, ctx.signal, session.interrupted).catch((error: Error) => {
        session.unfinished ??= error.message;
      });
      if (session.unfinished !== undefined)
        throw new Error(
          `objects and incomplete multipart uploads may remain under ${session.connection.bucket}/${session.prefix} (${session.unfinished}); benchspec clean ${ctx.artifactsDir} removes them`,
        );
    } finally {
      session.clients.destroy();
    }
  },
};

function maxInFlight(r: S3Repetition): number {
  const concurrency = maxConcurrency(r);
  const queues = opsOf(r).map((op) =>
    op.op === "MultipartUpload" ? op.calls[1].queue : op.op === "GetObject" ? (op.ranges?.queue ?? 1) : 1,
  );
  return concurrency * maxOf(queues, 1);
}

async function cleanup(session: Session, plan: S3Repetition, signal: AbortSignal) {
  const { connection, prefix } = session;
  const { client } = session.clients;
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
const abortUploads = (session: Session, prefix: string, signal: AbortSignal, interrupted = false) =>
  abortUploadsUnder(session.clients.client, session.connection.bucket, prefix, signal, interrupted);
