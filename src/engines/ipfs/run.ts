/**
 * The IPFS engine: executes the case's compiled call sequence (sdk/<case>.json) against the Kubo RPC API
 * (add and cat over benchspec's own HTTP client, rpc.ts; cleanup through kubo-rpc-client).
 * put = add (unique data per repetition, so deduplication never flatters a number), get = cat read to its
 * end; cleanup unpins what the run pinned and removes what it added — by garbage collection on a node
 * benchspec launched, block by block (exactly the blocks of the run's CIDs) on an external node, whose other
 * blocks are the user's. `freshNode` repetitions start on a new, empty repo (the IPFS scenario's "delete
 * ~/.ipfs and re-init between runs").
 */
import { sizeAt } from "../../rows/sizes.js";
import { create, type KuboRPCClient } from "kubo-rpc-client";
import { armCallSequence, fill, inThisThread, maxConcurrency, opsOf, type Execute } from "../load/load.js";
import { makePayload, warmPayloads } from "../load/payload.js";
import { warmStreams } from "../http/payload-body.js";
import { batchIndices, readSdkDocument } from "../../emit/sdk-format.js";
import { IpfsSdkDocumentSchema, type IpfsRepetition, type IpfsSdkDocument } from "./sdk-schema.js";
import type { ExecContext, Executor } from "../types.js";
import { blocksOf, removeBlocks, throwProblems, unpin, type AddedRoot } from "../../targets/ipfs/cleanup.js";
import { KuboRpc, type Added } from "./rpc.js";
import { addIdentity, removeUnfinished, type PlannedAdds, type UnfinishedAdd } from "./unfinished.js";
import { setTimeout } from "node:timers/promises";
import type { IpfsConnection } from "../../targets/ipfs/connection.js";
import { preparedAs } from "../../targets/index.js";
import { maxOf } from "../../rows/stats.js";
import { redactUrls } from "../../platform/redact.js";
import { graceAfter } from "../../platform/cleanup-bound.js";
import { ADD_GRACE_MS } from "../../platform/timeouts.js";

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
  /** External node, unique content: each root recorded as it is added, so `clean` can remove it after kill -9. */
  recorder?: AddRecorder;
  /** Adds cut off by Ctrl-C on an external node: what they stored is removed when the case finishes. */
  cutOff: UnfinishedAdd[];
}

/**
 * Records what the adds store as leftovers (leftovers.ndjson, or the coordinator's when on a client host).
 * Before an add entry's first add of a pass, what it is about to add (once per entry and pass: its seeds,
 * so that `clean` can compute what an add that never returned stored, unfinished.ts); after each add, the
 * root it returned — batched once per turn of the event loop, after the add was timed, so the record costs
 * no add its latency.
 */
class AddRecorder {
  private pending: AddedRoot[] = [];
  private scheduled = false;
  private readonly planned = new Set<string>();

  constructor(
    private readonly created: ExecContext["created"],
    private readonly unpin: boolean,
    private readonly runId: string,
    private readonly data: IpfsSdkDocument["data"],
  ) {}

  /** Said synchronously, before the add is sent: a run killed a moment later has it on record. */
  plan(op: AddOp, pass: number): void {
    const key = `${op.seed}\0${op.from}\0${pass}`;
    if (this.planned.has(key)) return;
    this.planned.add(key);
    this.record(op, pass);
  }

  /** An add Ctrl-C cut off, on record of its own: `clean` looks at its every leaf (late commits). */
  cutOff(op: AddOp, index: number, pass: number): void {
    this.record({ ...op, from: index, count: 1 }, pass, true);
  }

  private record(op: AddOp, pass: number, cutOff?: true): void {
    const record: PlannedAdds = {
      runId: this.runId,
      seed: op.seed,
      from: op.from,
      count: op.count,
      pass,
      size: op.size,
      chunker: op.chunker,
      cidVersion: op.cidVersion,
      rawLeaves: op.rawLeaves,
      pin: op.pin,
      data: this.data,
      ...(cutOff && { cutOff }),
    };
    const last = op.from + op.count - 1;
    const seeds = op.seed.replace("{i}", op.count === 1 ? `${op.from}` : `{${op.from}…${last}}`);
    this.created({
      kind: "engine",
      engine: "ipfs",
      what: `what the ${op.count === 1 ? "add" : "adds"} ${seeds}${pass > 0 ? ` (pass ${pass})` : ""} stored, ${cutOff ? "cut off by Ctrl-C" : "had they not returned"}`,
      record,
    });
  }

  add(root: AddedRoot): void {
    this.pending.push(root);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0) return;
    this.created({ kind: "cids", added: this.pending, unpin: this.unpin });
    this.pending = [];
  }
}

const sessions = new Map<string, Session>();
const REQUEST_TIMEOUT = "120s";

const connect = (api: string) => create({ url: api, timeout: REQUEST_TIMEOUT });

export const ipfsExecutor: Executor = {
  tunes: true,
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
    // What each repetition's cleanup removes block by block (external node, content no one else's) is
    // recorded as it is added; content that may be the user's too (zero data) is never removed, so not
    // recorded either.
    const removes = doc.repetitions.some((r) => r.cleanup.some((step) => step.op === "block/rm"));
    sessions.set(c.id, {
      doc,
      connection,
      client,
      rpc: new KuboRpc(connection.api),
      cids: new Map(),
      pinnedBefore,
      cutOff: [],
      ...(!connection.launched &&
        removes && { recorder: new AddRecorder(ctx.created, unpins, ctx.runId, doc.data) }),
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
    // On record before anything is timed: only later passes (a duration's, autotune's rounds) are said by
    // their first add.
    for (const op of opsOf(plan)) if (isAdd(op)) session.recorder?.plan(op, 0);
    const driver = inThisThread(executor(session, ctx), (signal) => warm(session.rpc, session.doc, signal));
    return armCallSequence(
      plan,
      driver,
      ctx.signal,
      (signal) => cleanup(session, plan, signal),
      ctx.hostShare,
    );
  },

  async finish(c, ctx) {
    const session = sessions.get(c.id);
    session?.recorder?.flush();
    sessions.delete(c.id);
    try {
      if (session && session.cutOff.length > 0) await removeCutOff(session, ctx.signal);
    } finally {
      session?.rpc.destroy();
    }
  },
};

function executor(session: Session, ctx: ExecContext): Execute<IpfsOp> {
  const { doc } = session;
  // On an external node an add in flight at Ctrl-C is let end (briefly): an add that returned has committed
  // every block, and its DAG is removed exactly; one aborted may commit blocks after its request ended.
  const addSignal = session.connection.launched ? ctx.signal : graceAfter(ctx.signal, ADD_GRACE_MS);
  return async (item, _worker, mark) => {
    const { op } = item;
    if (op.op === "add") {
      const size = sizeAt(op.size, item.index);
      const payload = makePayload(addIdentity(ctx.runId, op.seed, item.index, item.pass), size, doc.data);
      session.recorder?.plan(op, item.pass);
      const added = await session.rpc
        .add(payload, op, addSignal, { onBodyBytes: mark.moved })
        .catch((error: unknown) => {
          // Only content cleanup removes block by block (the recorder's): a cut-off add of zero data may
          // have the very blocks of the user's own zeros.
          if (ctx.signal.aborted && session.recorder) {
            session.cutOff.push({ payload, options: op });
            session.recorder.cutOff(op, item.index, item.pass);
          }
          throw error;
        });
      if (!session.pinnedBefore.has(added.cid)) session.recorder?.add(added);
      const ref = fill(op.ref, item.index);
      const before = session.cids.get(ref);
      if (before) before.push(added);
      else session.cids.set(ref, [added]);
      return size;
    }
    const cid = cidOf(session, fill(op.cid.ref, item.index));
    const bytes = await session.rpc.cat(cid, ctx.signal, {
      onFirstBodyByte: mark.firstByte,
      onBodyBytes: mark.moved,
    });
    const expected = sizeAt(op.size, item.index);
    if (bytes !== expected) throw new Error(`cat ${cid}: ${bytes} bytes, expected ${expected}`);
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

type AddOp = Extract<IpfsOp, { op: "add" }>;
const isAdd = (op: IpfsOp): op is AddOp => op.op === "add";

/**
 * Removes what the adds Ctrl-C cut off stored (unfinished.ts): adds that did not end within ADD_GRACE_MS.
 * Kubo may still commit an aborted add's blocks after its request ended (its batches in flight) — also of an
 * add that had stored nothing yet at the first look — so every cut-off add is looked at again, every leaf,
 * each LATE_COMMIT_MS once Kubo's request log shows no add storing data, until QUIET_LOOKS looks in a row find
 * nothing. The run's clean-up deadline after Ctrl-C bounds it: what may be left then is said (each cut-off
 * add is on record for `clean`), and so is what cannot be computed, with the node's own remedy.
 */
async function removeCutOff(session: Session, signal: AbortSignal): Promise<void> {
  const problems: string[] = [];
  const look = (relook: boolean) =>
    removeUnfinished(session.client, session.rpc, session.cutOff, signal, problems, relook);
  const node = `the IPFS node at ${redactUrls(session.connection.api)}`;
  let unknown = 0;
  let quiet = 0;
  let storing = session.cutOff.length;
  try {
    ({ unknown } = await look(false));
    while ((await session.rpc.addsRunning(signal)) > 0)
      await setTimeout(ADDS_RUNNING_POLL_MS, undefined, { signal });
    while (quiet < QUIET_LOOKS) {
      await setTimeout(LATE_COMMIT_MS, undefined, { signal });
      storing = (await look(true)).found.length;
      quiet = storing > 0 ? 0 : quiet + 1;
    }
  } catch (error) {
    if (!signal.aborted) throw error;
  }
  if (quiet < QUIET_LOOKS)
    problems.push(
      `${node} may still have been storing blocks of ${storing === 1 ? "an add" : `${storing} adds`} cut off by Ctrl-C when the run's clean-up time ran out (${(signal.reason as Error | undefined)?.message ?? "aborted"}); \`benchspec clean\` of this run removes them once the node is done`,
    );
  if (unknown > 0)
    problems.push(
      `${unknown === 1 ? "an add" : `${unknown} adds`} cut off by Ctrl-C may have left part of ${unknown === 1 ? "its" : "their"} data on ${node}, unpinned and under no CID benchspec could compute (a content-defined chunker, dag-pb leaves or a DAG's inner nodes); \`ipfs repo gc\` there removes it (benchspec never collects garbage on a node it did not launch)`,
    );
  throwProblems(problems);
}
/** How often an aborted add's late blocks are looked for. */
const LATE_COMMIT_MS = 250;
/** How often Kubo's request log is asked whether the adds cut off have ended. */
const ADDS_RUNNING_POLL_MS = 100;
/**
 * Looks in a row that find nothing, once the adds ended, before the node is taken to be done (the batches
 * an add had in flight commit after it ended).
 */
const QUIET_LOOKS = 2;
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
  session.recorder?.flush();
  const problems: string[] = [];
  // The blocks block/rm removes are listed first, while the DAGs are still pinned: a garbage collection
  // the node runs by itself after the unpinning could otherwise hide part of a DAG from `refs -r`.
  const listed = new Map<CleanupStep, string[]>();
  for (const step of plan.cleanup) {
    if (step.op === "block/rm")
      listed.set(step, await blocksOf(session.client, addedBy(session, step), signal, problems));
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
      const cids = addedBy(session, step).map((a) => a.cid);
      await unpin(
        session.client,
        cids.filter((cid) => !session.pinnedBefore.has(cid)),
        signal,
        problems,
      );
    } else {
      await removeBlocks(session.client, listed.get(step)!, signal, problems);
    }
  }
  for (const step of plan.cleanup) {
    if (step.op === "repo/gc") continue;
    for (const index of batchIndices(step)) session.cids.delete(fill(step.cid.ref, index));
  }
  throwProblems(problems);
}

/** What the adds under a step's refs produced, once per CID (nothing for an add that failed or never ran). */
function addedBy(session: Session, step: RefsStep): Added[] {
  const added = new Map<string, Added>();
  for (const index of batchIndices(step)) {
    for (const a of session.cids.get(fill(step.cid.ref, index)) ?? []) added.set(a.cid, a);
  }
  return [...added.values()];
}
