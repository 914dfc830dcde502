/**
 * The IPFS engine: executes the case's compiled call sequence (sdk/<case>.json) against the Kubo RPC API
 * (add and cat over benchspec's own HTTP client, rpc.ts; cleanup through kubo-rpc-client).
 * put = add (unique data per repetition, so deduplication never flatters a number), get = cat read to its
 * end; cleanup unpins what the run added and collects garbage. `freshNode` repetitions start on a new,
 * empty repo (the IPFS scenario's "delete ~/.ipfs and re-init between runs").
 */
import { create, type KuboRPCClient } from "kubo-rpc-client";
import { fill, inThisThread, runRepetition, type Execute } from "../load.js";
import { makePayload } from "../payload.js";
import {
  IpfsSdkDocumentSchema,
  readSdkDocument,
  type IpfsRepetition,
  type IpfsSdkDocument,
} from "../sdk-format.js";
import type { ExecContext, Executor, Measurement } from "../types.js";
import { KuboRpc } from "./rpc.js";
import type { IpfsConnection } from "./target.js";

type IpfsOp = IpfsRepetition["measured"]["ops"][number];

interface Session {
  doc: IpfsSdkDocument;
  connection: IpfsConnection;
  /** Cleanup calls (pin rm, repo gc). */
  client: KuboRPCClient;
  /** The calls on the clock (add, cat). */
  rpc: KuboRpc;
  /** CIDs produced by adds, by ref name. */
  cids: Map<string, string>;
}

const sessions = new Map<string, Session>();
const REQUEST_TIMEOUT = "120s";

const connect = (api: string) => create({ url: api, timeout: REQUEST_TIMEOUT });

export const ipfsExecutor: Executor = {
  tools: [],

  async prepare(c, ctx) {
    const connection = ctx.target.ipfs;
    if (!connection) throw new Error(`target "${c.target}" has no IPFS connection`);
    const doc = await readSdkDocument(IpfsSdkDocumentSchema, ctx.artifactsDir, c.id);
    sessions.set(c.id, {
      doc,
      connection,
      client: connect(connection.api),
      rpc: new KuboRpc(connection.api),
      cids: new Map(),
    });
  },

  async repetition(c, repetition, warmup, ctx): Promise<Measurement> {
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
    return runRepetition(plan, inThisThread(executor(session, ctx)), ctx.signal, (signal) =>
      cleanup(session, plan, signal),
    );
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
      const cid = await session.rpc.add(payload, op, ctx.signal);
      session.cids.set(fill(op.ref, item.index), cid);
      return op.size;
    }
    const cid = cidOf(session, fill(op.cid.ref, item.index));
    const bytes = await session.rpc.cat(cid, () => mark.firstByte(), ctx.signal);
    if (bytes !== op.size) throw new Error(`cat ${cid}: ${bytes} bytes, expected ${op.size}`);
    return bytes;
  };
}

function cidOf(session: Session, ref: string): string {
  const cid = session.cids.get(ref);
  if (!cid) throw new Error(`no CID for ${ref}: its add did not succeed`);
  return cid;
}

async function cleanup(session: Session, plan: IpfsRepetition, signal: AbortSignal) {
  for (const step of plan.cleanup) {
    if (step.op === "repo/gc") {
      for await (const result of session.client.repo.gc({ signal })) {
        if (result.err) throw result.err;
      }
      continue;
    }
    for (let index = step.from; index < step.from + step.count; index++) {
      const ref = fill(step.cid.ref, index);
      const cid = session.cids.get(ref);
      if (!cid) continue; // its add failed or never ran: nothing to unpin
      await session.client.pin.rm(cid as never, { signal });
      session.cids.delete(ref);
    }
  }
}
