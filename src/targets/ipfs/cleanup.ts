/**
 * Removing what adds stored on a Kubo node, exactly: the run's own cleanup after each repetition
 * (engines/ipfs/run.ts) and `benchspec clean` after a killed run (what the run recorded as it added) do it
 * alike. Never `repo gc` on a node benchspec did not launch: that would collect the user's unpinned blocks.
 */
import type { KuboRPCClient } from "kubo-rpc-client";
import { addDirectoryBlock } from "./add-directory.js";

/** A root an add returned, and the size it gave (the directory block it stores besides is computed from both). */
export interface AddedRoot {
  cid: string;
  size: number;
}

/** CIDs per refs/block rm request (all go into the URL). */
const CIDS_PER_REQUEST = 500;
const OFFLINE = new URLSearchParams({ offline: "true" });
const NOT_FOUND = /not found|could not find/i;

/**
 * Every block the adds stored: each root, every block below it as `refs -r` lists them (offline, so nothing
 * is fetched), and the directory block Kubo's add leaves besides (add-directory.ts). Listed while the roots
 * are still pinned: a garbage collection the node runs by itself after an unpinning could otherwise hide
 * part of a DAG from `refs -r`.
 */
export async function blocksOf(
  client: KuboRPCClient,
  added: readonly AddedRoot[],
  signal: AbortSignal,
  problems: string[],
): Promise<string[]> {
  const blocks = new Set<string>();
  for (const { cid, size } of added) {
    blocks.add(cid);
    try {
      blocks.add(addDirectoryBlock(cid, size));
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  for (const batch of chunks(
    added.map((a) => a.cid),
    CIDS_PER_REQUEST,
  )) {
    try {
      const refs = client.refs(batch, { recursive: true, unique: true, signal, searchParams: OFFLINE });
      for await (const ref of refs) {
        // A root already removed (the run's own cleanup came first) has nothing left to list.
        if (ref.err) {
          if (!NOT_FOUND.test(String(ref.err))) problems.push(`refs -r: ${String(ref.err)}`);
        } else blocks.add(ref.ref);
      }
    } catch (error) {
      if (!NOT_FOUND.test((error as Error).message)) problems.push(`refs -r: ${(error as Error).message}`);
    }
  }
  return [...blocks];
}

/** Unpins these roots; one that is not pinned (any more) is fine. */
export async function unpin(
  client: KuboRPCClient,
  cids: readonly string[],
  signal: AbortSignal,
  problems: string[],
): Promise<void> {
  for (const cid of cids) {
    await client.pin.rm(cid as never, { signal }).catch((error: Error) => {
      if (!/not pinned/.test(error.message)) problems.push(`pin rm ${cid}: ${error.message}`);
    });
  }
}

/**
 * `block rm` of exactly these blocks. Missing ones are fine (force), and Kubo refuses to remove a block that
 * is still pinned — by the user, directly or below one of their pins: that one stays, as it should.
 */
export async function removeBlocks(
  client: KuboRPCClient,
  blocks: readonly string[],
  signal: AbortSignal,
  problems: string[],
): Promise<void> {
  for (const batch of chunks(blocks, CIDS_PER_REQUEST)) {
    try {
      for await (const result of client.block.rm(batch as never, { force: true, signal })) {
        if (result.error && !/^pinned\b/.test(result.error.message))
          problems.push(`block rm ${result.cid.toString()}: ${result.error.message}`);
      }
    } catch (error) {
      problems.push(`block rm: ${(error as Error).message}`);
    }
  }
}

/** Throws naming the first problems, if any. */
export function throwProblems(problems: readonly string[]): void {
  if (problems.length === 0) return;
  const more = problems.length > 3 ? ` (and ${problems.length - 3} more)` : "";
  throw new Error(`${problems.slice(0, 3).join("; ")}${more}`);
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
