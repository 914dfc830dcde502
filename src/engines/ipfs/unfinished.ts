/**
 * What adds that never returned may have stored on an external Kubo node, found and removed without the
 * CIDs their adds never gave. Before an add entry's first add of each pass the run records what it is about
 * to add (`PlannedAdds`: seeds, size, add options); the payload is a function of them, so its blocks can be
 * computed again. With raw leaves and a fixed-size chunker (the defaults) each leaf is the CIDv1 (raw) of its
 * chunk, and the first leaf, stored first, tells whether the add stored anything; the root of an add that
 * finished but was never recorded (killed between Kubo's answer and the record) comes from an add that
 * stores nothing (only-hash). Used by `clean` after kill -9, and by the run for the adds Ctrl-C cut off.
 * Kubo refuses to remove a block that is pinned — the user's stay.
 */
import { createHash } from "node:crypto";
import type { KuboRPCClient } from "kubo-rpc-client";
import { CID } from "multiformats/cid";
import * as Digest from "multiformats/hashes/digest";
import { z } from "zod";
import { atIndex, objectSize, passSeed, SdkDataSchema } from "../../emit/sdk-format.js";
import { sizeAt } from "../../rows/sizes.js";
import { blocksOf, removeBlocks, throwProblems, unpin } from "../../targets/ipfs/cleanup.js";
import type { Target } from "../../spec/schema.js";
import { resolveEnvRefs } from "../../spec/strings.js";
import { makePayload, type Payload } from "../load/payload.js";
import { BLOCK } from "../load/payload-kernel.js";
import { KuboRpc, type Added } from "./rpc.js";

export const PlannedAddsSchema = z.object({
  runId: z.string(),
  /** The add entry's seed pattern ({i}), and the indices of its adds. */
  seed: z.string(),
  from: z.number().int().min(0),
  count: z.number().int().min(1),
  pass: z.number().int().min(0),
  size: objectSize,
  chunker: z.string(),
  cidVersion: z.number().int(),
  rawLeaves: z.boolean(),
  pin: z.boolean(),
  data: SdkDataSchema,
  /**
   * Adds Ctrl-C cut off: Kubo may have committed their blocks after the run's last look, and removed
   * leaves say nothing of the rest, so every leaf is looked at.
   */
  cutOff: z.boolean().optional(),
});
export type PlannedAdds = z.output<typeof PlannedAddsSchema>;

/** The payload's identity of an add (its index, its pass): what the executor generates its bytes from. */
export const addIdentity = (runId: string, seed: string, index: number, pass: number) =>
  `${runId}|${passSeed(atIndex(seed, index), pass)}`;

/** One add that may have stored part of its payload: its bytes, and the options it was sent with. */
export interface UnfinishedAdd {
  payload: Payload;
  options: Pick<PlannedAdds, "chunker" | "cidVersion" | "rawLeaves" | "pin">;
}

export function plannedAdds(planned: PlannedAdds): UnfinishedAdd[] {
  const adds: UnfinishedAdd[] = [];
  for (let i = planned.from; i < planned.from + planned.count; i++)
    adds.push({
      payload: makePayload(
        addIdentity(planned.runId, planned.seed, i, planned.pass),
        sizeAt(planned.size, i),
        planned.data,
      ),
      options: planned,
    });
  return adds;
}

/** Links per dag-pb node of Kubo's balanced layout (go-unixfs's DefaultLinksPerBlock). */
const LINKS_PER_NODE = 174;
const RAW = 0x55;
const SHA2_256 = 0x12;

/** The fixed chunk size of a `size-N` chunker; undefined for content-defined ones (rabin, buzhash). */
const fixedChunk = (chunker: string) => {
  const match = /^size-(\d+)$/.exec(chunker);
  return match ? Number(match[1]) : undefined;
};

/** The CIDs of the raw leaves an add of this payload stores, in the order it stores them. */
function* rawLeaves(payload: Payload, chunk: number): Generator<string> {
  for (let offset = 0; offset < payload.size; offset += chunk) {
    const bytes = payload.slice(offset, Math.min(chunk, payload.size - offset));
    const digest = Digest.create(SHA2_256, createHash("sha256").update(bytes).digest());
    yield CID.createV1(RAW, digest).toString();
  }
}

/**
 * The inner nodes a cut-off add of more leaves than one node links stored: Kubo's balanced layout stores
 * the node over leaves 174·j … 174·j + 173 once it fills, and that node is the root of a file of just those
 * chunks (it says nothing of its offset) — computed by an add that stores nothing, for each such node whose
 * last leaf is stored (on a relook, each full one: its leaves were removed before it was committed). Undefined when the DAG is deeper (more than 174² leaves: over 7 GiB at 256 KiB).
 */
async function innerNodes(
  rpc: KuboRpc,
  payload: Payload,
  options: UnfinishedAdd["options"],
  chunk: number,
  leaves: readonly string[],
  signal: AbortSignal,
  relook: boolean,
): Promise<string[] | undefined> {
  if (leaves.length <= LINKS_PER_NODE) return [];
  // Deeper DAGs, and spans the payload cannot start at (a chunk size off its 4 KiB blocks), are not computed.
  if (leaves.length > LINKS_PER_NODE ** 2 || (LINKS_PER_NODE * chunk) % BLOCK !== 0) return undefined;
  const nodes: string[] = [];
  for (let j = 0; (j + 1) * LINKS_PER_NODE <= leaves.length; j++) {
    if (!relook && !(await rpc.has(leaves[(j + 1) * LINKS_PER_NODE - 1]!, signal))) break;
    const span = subPayload(payload, j * LINKS_PER_NODE * chunk, LINKS_PER_NODE * chunk);
    nodes.push((await rpc.add(span, { ...options, pin: false, onlyHash: true }, signal)).cid);
  }
  return nodes;
}

/** Bytes [start, start + size) of a payload as a payload of their own (`start` on a block boundary). */
const subPayload = (payload: Payload, start: number, size: number): Payload => ({
  size,
  slice: (offset, length, into) => payload.slice(start + offset, length, into),
  fill: (chunk, offset, length) => payload.fill(chunk, start + offset, length),
});

export interface Removal {
  /** Adds that had stored something, now removed. */
  found: UnfinishedAdd[];
  /**
   * Adds part of whose blocks could not be computed: a content-defined chunker or dag-pb leaves, or the
   * inner nodes of a DAG of more than 174 leaves that an add cut off may have stored.
   */
  unknown: number;
}

/**
 * Removes what these adds stored, each either never begun (nothing), cut off (its first leaves) or finished
 * unrecorded (its whole DAG and pin). An add whose first leaf is absent stored nothing — unless its blocks
 * were removed once already and Kubo committed more of them late: `relook` then looks at every leaf (the
 * CIDs an add's looks compute are computed once: a relook only asks the node). Problems are collected, not
 * thrown.
 */
export async function removeUnfinished(
  client: KuboRPCClient,
  rpc: KuboRpc,
  adds: readonly UnfinishedAdd[],
  signal: AbortSignal,
  problems: string[],
  relook = false,
): Promise<Removal> {
  const removal: Removal = { found: [], unknown: 0 };
  for (const add of adds) {
    const { payload, options } = add;
    const chunk = fixedChunk(options.chunker);
    const byLeaves = chunk !== undefined && options.rawLeaves;
    if (byLeaves && !relook && !(await rpc.has(rawLeaves(payload, chunk).next().value!, signal))) continue;
    const known = computed(add);
    // The same root and cumulative size a real add returns (the directory block is computed from both).
    known.root ??= await rpc.add(payload, { ...options, pin: false, onlyHash: true }, signal);
    if (await rpc.has(known.root.cid, signal)) {
      const blocks = await blocksOf(client, [known.root], signal, problems);
      if (options.pin) await unpin(client, [known.root.cid], signal, problems);
      await removeBlocks(client, blocks, signal, problems);
      removal.found.push(add);
    } else if (byLeaves) {
      const leaves = (known.leaves ??= [...rawLeaves(payload, chunk)]);
      // A relook's inner nodes are every full one, the same each time; a first look's, those whose last
      // leaf is stored.
      const inner = relook
        ? (known.innerNodes ??= await innerNodes(rpc, payload, options, chunk, leaves, signal, true))
        : await innerNodes(rpc, payload, options, chunk, leaves, signal, false);
      if (inner === undefined) removal.unknown += 1;
      const present = relook ? await storedOf(rpc, [...(inner ?? []), ...leaves], signal) : undefined;
      if (present?.length === 0) continue;
      await removeBlocks(client, present ?? [...(inner ?? []), ...leaves], signal, problems);
      removal.found.push(add);
    } else removal.unknown += 1;
  }
  return removal;
}

/** What an add's looks computed of its blocks: its root, its leaves, every full inner node (a relook's). */
interface Computed {
  root?: Added;
  leaves?: string[];
  innerNodes?: string[] | undefined;
}
const computedOf = new WeakMap<UnfinishedAdd, Computed>();

function computed(add: UnfinishedAdd): Computed {
  let known = computedOf.get(add);
  if (!known) computedOf.set(add, (known = {}));
  return known;
}

/** The CIDs of these that the node holds, asked STATS_IN_FLIGHT at a time (a relook must be quick). */
async function storedOf(rpc: KuboRpc, cids: readonly string[], signal: AbortSignal) {
  const present: string[] = [];
  for (let i = 0; i < cids.length; i += STATS_IN_FLIGHT) {
    const batch = cids.slice(i, i + STATS_IN_FLIGHT);
    const held = await Promise.all(batch.map((cid) => rpc.has(cid, signal)));
    present.push(...batch.filter((_, j) => held[j]));
  }
  return present;
}
const STATS_IN_FLIGHT = 8;

/** Engine.removeLeftover: what planned adds on an external node stored, if they never returned (clean). */
export async function removePlannedAdds(
  target: Target,
  record: unknown,
  env: NodeJS.ProcessEnv,
): Promise<boolean> {
  // A node benchspec launched went with its repo (a directory leftover of its own).
  if (target.kind !== "ipfs" || target.api === undefined) return false;
  const planned = PlannedAddsSchema.parse(record);
  const api = resolveEnvRefs(target.api, env);
  const { create } = await import("kubo-rpc-client");
  const client = create({ url: api, timeout: "60s" });
  const rpc = new KuboRpc(api);
  const problems: string[] = [];
  try {
    const signal = AbortSignal.timeout(REMOVE_TIMEOUT_MS);
    const adds = plannedAdds(planned);
    const { found, unknown } = await removeUnfinished(client, rpc, adds, signal, problems, planned.cutOff);
    if (unknown > 0)
      problems.push(
        `${unknown} of these adds may have left blocks benchspec cannot compute (a content-defined chunker, dag-pb leaves or a DAG's inner nodes); \`ipfs repo gc\` on the node removes them`,
      );
    throwProblems(problems);
    return found.length > 0;
  } finally {
    rpc.destroy();
  }
}

/** How long removing one record's adds may take before it is given up (a node that does not answer). */
const REMOVE_TIMEOUT_MS = 120_000;
