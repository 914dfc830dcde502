/** Helpers for the IPFS tests: a Kubo node of the test's own, and what it holds, seen through its RPC API. */
import { create, type KuboRPCClient } from "kubo-rpc-client";
import { launchKubo, type KuboNode } from "../../src/targets/ipfs/kubo-server.js";

/** A Kubo node of the test's own, stopped after `body`. */
export async function withKubo<T>(body: (node: KuboNode, client: KuboRPCClient) => Promise<T>): Promise<T> {
  const node = await launchKubo();
  try {
    return await body(node, create({ url: node.api }));
  } finally {
    await node.stop();
  }
}

async function collect<T, U>(iterable: AsyncIterable<T>, map: (item: T) => U): Promise<U[]> {
  const out: U[] = [];
  for await (const item of iterable) out.push(map(item));
  return out;
}

export const localBlocks = (client: KuboRPCClient) =>
  collect(client.refs.local(), (r) => {
    if (r.err) throw new Error(String(r.err));
    return r.ref;
  }).then((refs) => refs.sort());

export const recursivePins = (client: KuboRPCClient) =>
  collect(client.pin.ls({ type: "recursive" }), (p) => p.cid.toString()).then((cids) => cids.sort());

/** A file's bytes from the node's own blockstore (offline: never fetched from elsewhere). */
export const catBytes = async (client: KuboRPCClient, cid: string) =>
  Buffer.concat(await collect(client.cat(cid, { offline: true } as never), (chunk) => chunk));
