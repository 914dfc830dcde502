/**
 * The IPFS engine: executes the case's compiled call sequence (sdk/<case>.json) with kubo-rpc-client.
 * put = add (unique data per repetition, so deduplication never flatters a number), get = cat read to its
 * end; cleanup unpins what the run added and collects garbage. `freshNode` repetitions start on a new,
 * empty repo (the IPFS scenario's "delete ~/.ipfs and re-init between runs").
 */
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import http from "node:http";
import https from "node:https";
import { create, type KuboRPCClient } from "kubo-rpc-client";
import { fill, runRepetition, type Execute } from "../load.js";
import { makePayload } from "../payload.js";
import {
  IpfsSdkDocumentSchema,
  readSdkDocument,
  type IpfsRepetition,
  type IpfsSdkDocument,
} from "../sdk-format.js";
import type { ExecContext, Executor, Measurement } from "../types.js";
import type { IpfsConnection } from "./target.js";

type IpfsOp = IpfsRepetition["measured"]["ops"][number];

interface Session {
  doc: IpfsSdkDocument;
  connection: IpfsConnection;
  client: KuboRPCClient;
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
    sessions.set(c.id, { doc, connection, client: connect(connection.api), cids: new Map() });
  },

  async repetition(c, repetition, warmup, ctx): Promise<Measurement> {
    const session = sessions.get(c.id)!;
    const plan = session.doc.repetitions.find((r) => r.repetition === repetition && r.warmup === warmup);
    if (!plan) throw new Error(`the call sequence has no ${warmup ? "warm-up" : "repetition"} ${repetition}`);
    if (plan.freshNode && session.connection.renew) {
      await session.connection.renew();
      session.client = connect(session.connection.api);
      session.cids.clear();
    }
    return runRepetition(plan, executor(session, ctx), ctx.signal, (signal) =>
      cleanup(session, plan, signal),
    );
  },

  async finish(c) {
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
      const cid = await add(session.connection.api, payload.chunks(), op, ctx.signal);
      session.cids.set(fill(op.ref, item.index), cid);
      return op.size;
    }
    const cid = cidOf(session, fill(op.cid.ref, item.index));
    let bytes = 0;
    const response = await rpc(session.connection.api, "cat", { arg: cid }, ctx.signal);
    for await (const chunk of response) {
      if (bytes === 0) mark.firstByte();
      bytes += (chunk as Buffer).length;
    }
    if (bytes !== op.size) throw new Error(`cat ${cid}: ${bytes} bytes, expected ${op.size}`);
    return bytes;
  };
}

/*
 * add and cat, the data path, go through node:http rather than kubo-rpc-client: the client sends through the
 * global fetch (undici, web streams), which cost about twice the CPU per byte of node:http and the `ipfs`
 * CLI (npm run bench). Same RPC calls, same options; kubo-rpc-client keeps the cleanup calls.
 */
const agents = {
  "http:": new http.Agent({ keepAlive: true }),
  "https:": new https.Agent({ keepAlive: true }),
};
const RPC_IDLE_TIMEOUT_MS = 120_000;

/** POSTs an RPC call; resolves with the response once it is 200, rejects with Kubo's message otherwise. */
function rpc(
  api: string,
  command: string,
  query: Record<string, string | number | boolean>,
  signal: AbortSignal,
  body?: { contentType: string; write(request: http.ClientRequest): Promise<void> },
): Promise<http.IncomingMessage> {
  const base = api.replace(/\/+$/, "");
  const url = new URL(`${base.endsWith("/api/v0") ? base : `${base}/api/v0`}/${command}`);
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, String(value));
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(url, {
      method: "POST",
      agent: agents[url.protocol as keyof typeof agents],
      signal,
      ...(body && { headers: { "content-type": body.contentType } }),
    });
    // No bytes either way for this long fails the call: a dead node cannot hang a run.
    request.setTimeout(RPC_IDLE_TIMEOUT_MS, () =>
      request.destroy(new Error(`ipfs ${command}: no response for ${RPC_IDLE_TIMEOUT_MS / 1000} s`)),
    );
    request.on("error", reject);
    request.once("response", (response) => {
      if (response.statusCode === 200) return resolve(response);
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text = (text + chunk).slice(0, 4096)));
      response.once("end", () => {
        const message = (() => {
          try {
            return (JSON.parse(text) as { Message?: string }).Message;
          } catch {
            return text.trim();
          }
        })();
        reject(new Error(`ipfs ${command}: ${message || "failed"} (HTTP ${response.statusCode})`));
      });
      response.once("error", reject);
    });
    if (!body) return void request.end();
    body.write(request).then(
      () => request.end(),
      (error: Error) => request.destroy(error),
    );
  });
}

/** `add` of one file streamed as multipart/form-data; resolves with its CID. */
async function add(
  api: string,
  chunks: Iterable<Buffer>,
  op: { cidVersion: number; rawLeaves: boolean; chunker: string; pin: boolean },
  signal: AbortSignal,
): Promise<string> {
  const boundary = `benchspec-${randomBytes(12).toString("hex")}`;
  const query = {
    "stream-channels": true,
    progress: false,
    "cid-version": op.cidVersion,
    "raw-leaves": op.rawLeaves,
    chunker: op.chunker,
    pin: op.pin,
  };
  const response = await rpc(api, "add", query, signal, {
    contentType: `multipart/form-data; boundary=${boundary}`,
    async write(request) {
      const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename=""\r\nContent-Type: application/octet-stream\r\n\r\n`;
      request.write(head);
      for (const chunk of chunks) {
        if (request.destroyed) return;
        if (!request.write(chunk)) await once(request, "drain", { signal });
      }
      request.write(`\r\n--${boundary}--\r\n`);
    },
  });
  let text = "";
  response.setEncoding("utf8");
  for await (const chunk of response) text += chunk as string;
  const lines = text
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { Hash?: string; Message?: string });
  const hash = lines.findLast((line) => line.Hash)?.Hash;
  if (!hash)
    throw new Error(`ipfs add: ${lines.find((line) => line.Message)?.Message ?? "no CID in the response"}`);
  return hash;
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
