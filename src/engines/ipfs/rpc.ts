/**
 * The Kubo RPC calls on the clock — add and cat — over benchspec's own keep-alive HTTP/1.1 connections
 * (the same client as the S3 data plane). kubo-rpc-client sends through the global fetch (undici, web
 * streams) and node:http allocates per read; both cost the client more CPU per byte than the `ipfs` CLI,
 * and on a shared machine that CPU is taken from the node being measured (npm run bench). Same RPC calls,
 * same options; kubo-rpc-client keeps the cleanup calls (pin ls/rm, refs, block rm, repo gc).
 */
import { NETWORK_TIMEOUTS } from "../../platform/timeouts.js";
import { randomBytes } from "node:crypto";
import type { Payload } from "../load/payload.js";
import { payloadBody } from "../http/payload-body.js";
import {
  ConnectionPool,
  originOf,
  type Progress,
  type ExchangeOptions,
  type WireResponse,
  type WriteChunk,
} from "../http/http1.js";

export interface AddOptions {
  cidVersion: number;
  rawLeaves: boolean;
  chunker: string;
  pin: boolean;
  /** Only compute the CID, store nothing (the warm-up's add). */
  onlyHash?: boolean;
}

/** An entry of Kubo's request log (`ipfs diag cmds`). */
interface RequestLogEntry {
  Active: boolean;
  Command: string;
  Options?: Record<string, unknown>;
}

/** What an add returned: the root's CID and the DAG's cumulative size (`Size`). */
export interface Added {
  cid: string;
  size: number;
}

export class KuboRpc {
  private readonly pool: ConnectionPool;
  private readonly host: string;
  private readonly base: string;

  constructor(api: string) {
    const url = new URL(api);
    this.pool = new ConnectionPool(originOf(url, "IPFS API"), NETWORK_TIMEOUTS);
    this.host = url.host;
    const path = url.pathname.replace(/\/+$/, "");
    this.base = path.endsWith("/api/v0") ? path : `${path}/api/v0`;
  }

  /** Adds one file, streamed as multipart/form-data; resolves with its CID and cumulative size. */
  async add(
    payload: Payload,
    options: AddOptions,
    signal: AbortSignal,
    progress: Progress = {},
  ): Promise<Added> {
    const boundary = `benchspec-${randomBytes(12).toString("hex")}`;
    const before = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename=""\r\nContent-Type: application/octet-stream\r\n\r\n`,
    );
    const after = Buffer.from(`\r\n--${boundary}--\r\n`);
    const response = await this.call(
      "add",
      {
        "stream-channels": true,
        progress: false,
        "cid-version": options.cidVersion,
        "raw-leaves": options.rawLeaves,
        chunker: options.chunker,
        pin: options.pin,
        ...(options.onlyHash && { "only-hash": true }),
      },
      signal,
      { ...progress, keepBody: () => true },
      {
        contentType: `multipart/form-data; boundary=${boundary}`,
        length: before.length + payload.size + after.length,
        write: payloadBody(payload, before, after),
      },
    );
    const lines = response
      .body!.toString("utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { Hash?: string; Size?: string; Message?: string });
    const added = lines.findLast((line) => line.Hash);
    if (!added?.Hash)
      throw new Error(`ipfs add: ${lines.find((line) => line.Message)?.Message ?? "no CID in the response"}`);
    return { cid: added.Hash, size: Number(added.Size) };
  }

  /** Reads a file to its end; resolves with the bytes received. */
  async cat(cid: string, signal: AbortSignal, progress: Progress = {}): Promise<number> {
    const response = await this.call("cat", { arg: cid }, signal, {
      ...progress,
      keepBody: (status) => status !== 200,
    });
    return response.bodyBytes;
  }

  /**
   * Whether the node holds the block itself (offline: never fetched from elsewhere). Over this client's
   * keep-alive connections: a cut-off add's relook asks for hundreds of blocks within the clean-up time.
   */
  async has(cid: string, signal: AbortSignal): Promise<boolean> {
    try {
      await this.call("block/stat", { arg: cid, offline: true }, signal, { keepBody: () => true });
      return true;
    } catch (error) {
      // Kubo's "block was not found locally (offline)"; any other refusal is not an answer.
      if (signal.aborted || !(error instanceof KuboError && /not found/i.test(error.message))) throw error;
      return false;
    }
  }

  /**
   * How many adds that store data the node is running (its request log, `diag/cmds`): an add that ended has
   * no more than its batches in flight left to commit.
   */
  async addsRunning(signal: AbortSignal): Promise<number> {
    const response = await this.call("diag/cmds", {}, signal, { keepBody: () => true });
    const log = JSON.parse(response.body!.toString("utf8")) as RequestLogEntry[] | null;
    return (log ?? []).filter((c) => c.Active && c.Command === "add" && !c.Options?.["only-hash"]).length;
  }

  /** Opens `count` connections for the timed calls (ConnectionPool.warm), each with a `version` call. */
  warm(count: number, signal: AbortSignal): Promise<void> {
    return this.pool.warm(
      count,
      { method: "POST", target: `${this.base}/version`, headers: { host: this.host }, contentLength: 0 },
      signal,
    );
  }

  destroy(): void {
    this.pool.destroy();
  }

  /** POSTs an RPC call; rejects with Kubo's message unless it answers 200. */
  private async call(
    command: string,
    query: Record<string, string | number | boolean>,
    signal: AbortSignal,
    options: ExchangeOptions,
    body?: {
      contentType: string;
      length: number;
      write: (write: WriteChunk) => Promise<void>;
    },
  ): Promise<WireResponse> {
    const search = new URLSearchParams(
      Object.entries(query).map(([name, value]): [string, string] => [name, String(value)]),
    ).toString();
    const response = await this.pool.request(
      {
        method: "POST",
        target: `${this.base}/${command}?${search}`,
        headers: { host: this.host, ...(body && { "content-type": body.contentType }) },
        contentLength: body?.length ?? 0,
        ...(body && { body: body.write }),
      },
      { ...options, signal },
    );
    if (response.status === 200) return response;
    const text = response.body?.toString("utf8").trim() ?? "";
    const message = (() => {
      try {
        return (JSON.parse(text) as { Message?: string }).Message;
      } catch {
        return text.slice(0, 4096);
      }
    })();
    throw new KuboError(`ipfs ${command}: ${message || "failed"} (HTTP ${response.status})`);
  }
}

/** The node answered, and refused the call (not a network failure). */
class KuboError extends Error {}
