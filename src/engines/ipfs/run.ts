/**
 * The IPFS engine: executes the case's compiled call sequence (sdk/<case>.json) against the Kubo RPC API
 * (add and cat over benchspec's own HTTP client, rpc.ts; cleanup through kubo-rpc-client).
 * put = add (unique data per repetition, so deduplication never flatters a number), get = cat read to its
 * end; cleanup unpins what the run pinned and removes what it added — by garbage collection on a node
 * benchspec launched, block by block (exactly the blocks of the run's CIDs) on an external node, whose other
 * blocks are the user's. `freshNode` repetitions start on a new, empty repo (the IPFS scenario's "delete
 * ~/.ipfs and re-init between runs").
 */
import { create, type KuboRPCClient } from "kubo-rpc-client";
import { armCallSequence, fill, inThisThread, maxConcurrency, opsOf, type Execute } from "../load/load.js";
import { makePayload, warmPayloads } from "../load/payload.js";
import { warmStreams } from "../http/payload-body.js";
import {
  batchIndices,
  IpfsSdkDocumentSchema,
  readSdkDocument,
  type IpfsRepetition,
  type IpfsSdkDocument,
} from "../../emit/sdk-format.js";
import type { ExecContext, Executor } from "../types.js";
import { addDirectoryBlock } from "./add-directory.js";
import { KuboRpc, type Added } from "./rpc.js";
import type { IpfsConnection } from "../../targets/ipfs/connection.js";
import { preparedAs } from "../../targets/index.js";
import { maxOf } from "../../rows/stats.js";

type IpfsOp = IpfsRepetition["measured"]["ops"][number];
type CleanupStep = IpfsRepetition["cleanup"][number];
type RefsStep = Exclude<CleanupStep, { op: "repo/gc" }>;

interface Session {
  doc: IpfsSdkDocument;
  connection: IpfsConnection;
  /** Cleanup calls (pin ls/rm, refs, block rm, repo gc). */
  client: KuboRPCClient;
  /** The calls on the clock (add, cat). */
  rpc: KuboRpc;
  /** What the adds under a ref name produced: one per pass (a time-based or autotuned put adds anew in each). */
  cids: Map<string, Added[]>;
  /** External node: its recursive pins when the case began (the user's, which cleanup never unpins). */
  pinnedBefore: Set<string>;
}

const sessions = new Map<string, Session>();
const REQUEST_TIMEOUT = "120s";

/** CIDs per refs/block rm request (all go into the URL). */
const CIDS_PER_REQUEST = 500;

const connect = (api: string) => create({ url: api, timeout: REQUEST_TIMEOUT });

export const ipfsExecutor: Executor = {
  async prepare(c, ctx) {
    const { connection } = preparedAs(ctx.target, "ipfs");
    const doc = await readSdkDocument(IpfsSdkDocumentSchema, ctx.artifactsDir, c.id);
    const client = connect(connection.api);
    // Content identical to the user's has the user's CID, and unpinning it would unpin theirs (only
    // conceivable with non-random data, but cheap to rule out).
    const unpins = doc.repetitions.some((r) => r.cleanup.some((step) => step.op === "pin/rm"));
    const pinnedBefore = new Set<string>();
    if (!connection.launched && unpins) {
      for await (const pin of client.pin.ls({ type: "recursive", signal: ctx.signal }))
        pinnedBefore.add(pin.cid.toString());
    }
    sessions.set(c.id, {
      doc,
      connection,
      client,
      rpc: new KuboRpc(connection.api),
      cids: new Map(),
      pinnedBefore,
    });
  },

  /** A fresh node and the setup's adds before the start; the measured group at go. */
  async arm(c, repetition, warmup, ctx) {
    const session = sessions.get(c.id)!;
    const plan = session.doc.repetitions.find((r) => r.repetition === repetition && r.warmup === warmup);
    if (!plan) throw new Error(`the call sequence has no ${warmup ? "warm-up" : "repetition"} ${repetition}`);
    if (plan.freshNode && session.connection.renew && !session.connection.pristine) {
      await session.connection.renew();
      session.client = connect(session.connection.api);
      session.rpc.destroy();
      session.rpc = new KuboRpc(session.connection.api);
      session.cids.clear();
    }
    session.connection.pristine = false;
    const driver = inThisThread(executor(session, ctx), (signal) => warm(session.rpc, session.doc, signal));
    return armCallSequence(plan, driver, ctx.signal, (signal) => cleanup(session, plan, signal));
  },

  async finish(c) {
    sessions.get(c.id)?.rpc.destroy();
    sessions.delete(c.id);
  },
};

function executor(session: Session, ctx: ExecContext): Execute<IpfsOp> {
  const { doc } = session;
  return async (item, _worker, mark) => {
    const { op } = item;
    if (op.op === "add") {
      const seed = fill(op.seed, item.index) + (item.pass > 0 ? `/p${item.pass}` : "");
      const payload = makePayload(`${ctx.runId}|${seed}`, op.size, doc.data);
      const added = await session.rpc.add(payload, op, ctx.signal, { onBodyBytes: mark.moved });
      const ref = fill(op.ref, item.index);
      const before = session.cids.get(ref);
      if (before) before.push(added);
      else session.cids.set(ref, [added]);
      return op.size;
    }
    const cid = cidOf(session, fill(op.cid.ref, item.index));
    const bytes = await session.rpc.cat(cid, ctx.signal, {
      onFirstBodyByte: mark.firstByte,
      onBodyBytes: mark.moved,
    });
    if (bytes !== op.size) throw new Error(`cat ${cid}: ${bytes} bytes, expected ${op.size}`);
    return bytes;
  };
}

/**
 * Before each repetition (LoadDriver.warm), outside its timed window: the payload generator, the buffers of
 * the streamed add bodies, a connection per request in flight, and one add that stores nothing (only-hash)
 * with the case's options, so that the first timed add is not also this process's first run of the add
 * path (0.1 s more for the first 64 MiB add of a fresh process).
 */
async function warm(rpc: KuboRpc, doc: IpfsSdkDocument, signal: AbortSignal) {
  warmPayloads();
  const inFlight = maxOf(doc.repetitions.map(maxConcurrency));
  await rpc.warm(inFlight, signal);
  const add = doc.repetitions.flatMap(opsOf).find(isAdd);
  // Every add streams its body.
  warmStreams(add ? inFlight : 0);
  if (add)
    await rpc.add(
      makePayload("warm-up", WARM_UP_BYTES, doc.data),
      { ...add, pin: false, onlyHash: true },
      signal,
    );
}

const isAdd = (op: IpfsOp): op is Extract<IpfsOp, { op: "add" }> => op.op === "add";
/** A few of the payload's 1 MiB pieces and of Kubo's chunks. */
const WARM_UP_BYTES = 4 * 2 ** 20;

/** The CID the latest add under a ref produced. */
function cidOf(session: Session, ref: string): string {
  const cid = session.cids.get(ref)?.at(-1)?.cid;
  if (!cid) throw new Error(`no CID for ${ref}: its add did not succeed`);
  return cid;
}

/**
 * Runs the repetition's cleanup steps. A problem with one CID does not stop the others (each left over is
 * only a leftover); cleanup fails afterwards, naming the first problems.
 */
async function cleanup(session: Session, plan: IpfsRepetition, signal: AbortSignal) {
  const problems: string[] = [];
  // The blocks block/rm removes are listed first, while the DAGs are still pinned: a garbage collection
  // the node runs by itself after the unpinning could otherwise hide part of a DAG from `refs -r`.
  const listed = new Map<CleanupStep, string[]>();
  for (const step of plan.cleanup) {
    if (step.op === "block/rm")
      listed.set(step, await blocksOf(session, addedBy(session, step), signal, problems));
  }
  for (const step of plan.cleanup) {
    if (step.op === "repo/gc") {
      // The compiler never asks for it on an external node (and the format forbids it): gc there would also
      // collect the user's unpinned blocks.
      if (!session.connection.launched)
        throw new Error("refusing repo/gc on a node benchspec did not launch");
      for await (const result of session.client.repo.gc({ signal })) {
        if (result.err) throw result.err;
      }
    } else if (step.op === "pin/rm") {
      for (const { cid } of addedBy(session, step)) {
        if (session.pinnedBefore.has(cid)) continue;
        await session.client.pin.rm(cid as never, { signal }).catch((error: Error) => {
          problems.push(`pin rm ${cid}: ${error.message}`);
        });
      }
    } else {
      await removeBlocks(session, listed.get(step)!, signal, problems);
    }
  }
  for (const step of plan.cleanup) {
    if (step.op === "repo/gc") continue;
    for (const index of batchIndices(step)) session.cids.delete(fill(step.cid.ref, index));
  }
  if (problems.length > 0) {
    const more = problems.length > 3 ? ` (and ${problems.length - 3} more)` : "";
    throw new Error(`${problems.slice(0, 3).join("; ")}${more}`);
  }
}

/** What the adds under a step's refs produced, once per CID (nothing for an add that failed or never ran). */
function addedBy(session: Session, step: RefsStep): Added[] {
  const added = new Map<string, Added>();
  for (const index of batchIndices(step)) {
    for (const a of session.cids.get(fill(step.cid.ref, index)) ?? []) added.set(a.cid, a);
  }
  return [...added.values()];
}

/**
 * Every block the adds stored: each root, every block below it as `refs -r` lists them (offline, so nothing
 * is fetched), and the directory block Kubo's add leaves besides (add-directory.ts).
 */
async function blocksOf(session: Session, added: Added[], signal: AbortSignal, problems: string[]) {
  const blocks = new Set<string>();
  for (const { cid, size } of added) {
    blocks.add(cid);
    try {
      blocks.add(addDirectoryBlock(cid, size));
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  const roots = added.map((a) => a.cid);
  for (const batch of chunks(roots, CIDS_PER_REQUEST)) {
    try {
      const refs = session.client.refs(batch, {
        recursive: true,
        unique: true,
        signal,
        searchParams: OFFLINE,
      });
      for await (const ref of refs) {
        if (ref.err) problems.push(`refs -r: ${String(ref.err)}`);
        else blocks.add(ref.ref);
      }
    } catch (error) {
      problems.push(`refs -r: ${(error as Error).message}`);
    }
  }
  return [...blocks];
}

const OFFLINE = new URLSearchParams({ offline: "true" });

/**
 * `block rm` of exactly these blocks. Missing ones are fine (force), and Kubo refuses to remove a block that
 * is still pinned — by the user, directly or below one of their pins: that one stays, as it should.
 */
async function removeBlocks(session: Session, blocks: string[], signal: AbortSignal, problems: string[]) {
  for (const batch of chunks(blocks, CIDS_PER_REQUEST)) {
    try {
      for await (const result of session.client.block.rm(batch as never, { force: true, signal })) {
        if (result.error && !/^pinned\b/.test(result.error.message))
          problems.push(`block rm ${result.cid.toString()}: ${result.error.message}`);
      }
    } catch (error) {
      problems.push(`block rm: ${(error as Error).message}`);
    }
  }
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
