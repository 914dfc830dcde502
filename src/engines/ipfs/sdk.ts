/**
 * IPFS (Kubo RPC) call sequences (`sdk/<case-id>.json`, format in ../sdk-format.ts and docs/sdk-format.md).
 * put = add, get = cat of content added (unmeasured) in the same repetition; cleanup unpins what the
 * repetition pinned, then removes what it added: on a launched (throwaway) node by collecting garbage, on an
 * external node block by block (block/rm) — `repo gc` there would also collect the user's unpinned blocks.
 * `fresh` decides on which repetitions the executor starts over on an empty node.
 */
import type { Case } from "../../plan/types.js";
import type { Target } from "../../spec/schema.js";
import {
  measuredGroup,
  param,
  repetitionSlots,
  sdkArtifactPath,
  SDK_FORMAT,
  setupConcurrency,
  type RepetitionSlot,
  type SdkBody,
} from "../../emit/sdk-format.js";
import type { IpfsRepetition, IpfsSdkDocument } from "./sdk-schema.js";
import { BenchspecError } from "../../platform/errors.js";
import type { Artifact, CompileContext } from "../../emit/types.js";
import { jsonArtifact } from "../../emit/writer.js";

type IpfsTarget = Extract<Target, { kind: "ipfs" }>;
type IpfsOp = IpfsRepetition["measured"]["ops"][number];
type Add = Extract<IpfsOp, { op: "add" }>;

export function ipfsSdkArtifact(c: Case, ctx: CompileContext): Artifact {
  const target = ctx.plan.targets[c.target];
  if (target?.kind !== "ipfs")
    throw new BenchspecError("not-compilable", `case ${c.id}: target "${c.target}" is not an ipfs target`);
  if (c.op !== "put" && c.op !== "get")
    throw new BenchspecError("not-compilable", `case ${c.id}: the ipfs engine has no "${c.op}"`);
  const body: SdkBody<IpfsSdkDocument> = {
    case: c.id,
    workload: c.workload,
    engine: "ipfs",
    op: c.op,
    target: ipfsTarget(c.target, target),
    data: c.params.data ?? "random",
    repetitions: repetitionSlots(c).map((slot, index) => repetition(c, slot, target, index === 0)),
  };
  return { path: sdkArtifactPath(c.id), content: jsonArtifact(ctx, SDK_FORMAT, body) };
}

function ipfsTarget(name: string, t: IpfsTarget): IpfsSdkDocument["target"] {
  return {
    name,
    kind: "ipfs",
    ...(t.launch !== undefined && { launch: t.launch, fresh: t.fresh ?? "once" }),
    ...(t.api !== undefined && { api: t.api }),
    ...(t.keep !== undefined && { keep: t.keep }),
  };
}

/** Launched nodes only: per-repetition → every repetition, per-case → the case's first, once → never here. */
function freshNode(t: IpfsTarget, first: boolean): boolean {
  if (t.launch === undefined) return false;
  if (t.fresh === "per-repetition") return true;
  return t.fresh === "per-case" && first;
}

function repetition(c: Case, slot: RepetitionSlot, target: IpfsTarget, first: boolean): IpfsRepetition {
  const range = { from: 0, count: param(c, "objects") };
  const ref = `${slot.tag}/o{i}`;
  const size = param(c, "size");
  const pin = param(c, "pin");
  const add: Add = {
    op: "add",
    ...range,
    ref,
    seed: `${c.id}/${slot.tag}/o{i}`,
    size,
    chunker: param(c, "chunker"),
    cidVersion: param(c, "cidVersion"),
    rawLeaves: param(c, "rawLeaves"),
    pin,
  };
  const ops: IpfsOp[] = c.op === "put" ? [add] : [{ op: "cat", ...range, cid: { ref }, size }];
  return {
    repetition: slot.repetition,
    warmup: slot.warmup,
    freshNode: freshNode(target, first),
    ...(c.op === "get" && { setup: { concurrency: setupConcurrency(c), ops: [add] } }),
    measured: measuredGroup(c, ops),
    cleanup: cleanup(target, pin, uniqueContent(c), { ...range, cid: { ref } }),
  };
}

/**
 * keep: nothing. Otherwise unpin what was pinned, then: a launched node is benchspec's own, so garbage
 * collection removes what the repetition added; an external node also holds the user's blocks, pinned or
 * not, so only the blocks of the repetition's own CIDs are removed — and only when no other content can
 * share them (else they stay, unpinned).
 */
function cleanup(
  target: IpfsTarget,
  pin: boolean,
  unique: boolean,
  added: { from: number; count: number; cid: { ref: string } },
): IpfsRepetition["cleanup"] {
  if (target.keep === true) return [];
  const unpin = pin ? [{ op: "pin/rm" as const, ...added }] : [];
  if (target.launch !== undefined) return [...unpin, { op: "repo/gc" }];
  return unique ? [...unpin, { op: "block/rm", ...added }] : unpin;
}

/**
 * Whether every block the case's adds produce is this run's own. Random payloads (and compressible ones up
 * to 99 %) carry an identity stamp of the run, seed and pass in every 4 KiB (payload.ts). Zero payloads
 * and empty files are the same bytes everywhere: the node may hold those blocks already, perhaps pinned under
 * another CID version, which `block rm` would not notice (Kubo checks pins by CID, stores blocks by multihash).
 */
export function uniqueContent(c: Case): boolean {
  const data = c.params.data ?? "random";
  if (param(c, "size") === 0) return false;
  return data === "random" || (typeof data === "object" && data.compressible <= 99);
}
