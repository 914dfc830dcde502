/**
 * The target-kind registry: one entry per kind, each in its own folder (src/targets/<kind>/); a missing
 * kind is a type error. Importing it loads no client library: the s3 and ipfs entries import theirs when a
 * run prepares such a target.
 */
import type { Target, TargetKind } from "../spec/schema.js";
import { BenchspecError } from "../platform/errors.js";
import { redactUrls } from "../platform/redact.js";
import { blockTarget } from "./block/index.js";
import { fsTarget } from "./fs/index.js";
import { ipfsTarget } from "./ipfs/index.js";
import { s3Target } from "./s3/index.js";
import type { PreparedTarget, PreparedTargetOf, PrepareOptions, TargetKindEntry } from "./types.js";

export { removeOwnedTargetsSync } from "./fs/prepare.js";
export type { PreparedTarget } from "./types.js";

const TARGETS: { [K in TargetKind]: TargetKindEntry<K> } = {
  fs: fsTarget,
  block: blockTarget,
  s3: s3Target,
  ipfs: ipfsTarget,
};

export function targetKind<K extends TargetKind>(kind: K): TargetKindEntry<K> {
  return TARGETS[kind];
}

export async function prepareTarget(
  name: string,
  target: Target,
  options: Omit<PrepareOptions, "name">,
): Promise<PreparedTarget> {
  try {
    return await targetKind(target.kind).prepare(target, { ...options, name });
  } catch (error) {
    throw new BenchspecError("target-setup", `target "${name}": ${redactUrls((error as Error).message)}`, {
      cause: error,
    });
  }
}

/** The prepared target as the kind an engine drives (engines only ever get targets of their kinds). */
export function preparedAs<K extends TargetKind>(target: PreparedTarget, kind: K): PreparedTargetOf<K> {
  if (target.kind !== kind)
    throw new BenchspecError("internal", `a ${kind} engine was given a ${target.kind} target`);
  return target as PreparedTargetOf<K>;
}
