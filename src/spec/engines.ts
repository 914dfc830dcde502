/**
 * What each engine of the language can do: the target kinds it drives, its operations, the workload
 * parameters that mean something to it, and its defaults. A typed record, so a new engine that forgets an
 * entry is a type error; shared stages read this table and never branch on an engine's name.
 */
import type { Metric } from "../rows/metric-names.js";
import { ENGINE_PLUGINS } from "../engine-facts/registry.js";
import type { ParamName, Params, TargetKind } from "./schema.js";
import type { ArtifactFormat, EngineName, Op } from "./words.js";

/** Operations that change the target's contents (a block device needs destructive: true for these). */
export const WRITING_OPS: ReadonlySet<Op> = new Set([
  "write",
  "randwrite",
  "readwrite",
  "randrw",
  "put",
  "delete",
  "mixed",
]);
/**
 * What in a case writes to its target, or undefined when nothing does: its op, preconditioning or a purge
 * (a block device needs destructive: true for any of them).
 */
export function targetWriter(op: Op, params: Partial<Params>): string | undefined {
  if (WRITING_OPS.has(op)) return `op ${op} writes`;
  if (params.purge === true) return "purge writes";
  if (params.precondition !== undefined) return "preconditioning writes";
  return undefined;
}

/** Operations that mix reads and writes, where the `read` percentage applies. */
export const MIXED_OPS: ReadonlySet<Op> = new Set(["readwrite", "randrw"]);

/** Parameters that mean something only for some operations of their engines. */
export const OP_PARAMS: Partial<Record<ParamName, ReadonlySet<Op>>> = {
  read: MIXED_OPS,
  mix: new Set(["mixed"]),
};

/** An S3 mixed workload's default shares, as warp's `mixed` benchmark. */
export const DEFAULT_MIX = { get: 45, stat: 30, put: 15, delete: 10 } as const;

export interface EngineInfo {
  /** The artifact formats `compile` can express this engine's cases in; `shell` is shared by all. */
  formats: readonly ArtifactFormat[];
  summary: string;
  targetKinds: readonly TargetKind[];
  ops: readonly Op[];
  /** Parameters beyond the common ones that this engine understands. */
  params: readonly ParamName[];
  defaults: Partial<Params>;
  /** The metrics its result rows carry (what `expect` can check; see src/engines/<engine>/). */
  metrics: readonly Metric[];
  /** Whether one case may run on several targets at once (`target: { together: [...] }`): its own processes per target. */
  together: boolean;
}

/** Parameters every engine understands. */
export const COMMON_PARAMS: readonly ParamName[] = [
  "target",
  "hosts",
  "engine",
  "op",
  "repeat",
  "warmup",
  "data",
  "sample",
  "idle",
];

/** Every engine's language facts, from its folder (through the registry), checked against EngineInfo here. */
export const ENGINES: Record<EngineName, EngineInfo> = Object.fromEntries(
  Object.entries(ENGINE_PLUGINS).map(([name, plugin]) => [name, plugin.language]),
) as { [E in EngineName]: (typeof ENGINE_PLUGINS)[E]["language"] } satisfies Record<EngineName, EngineInfo>;

/** Defaults every engine shares, applied before the engine's own. */
export const COMMON_DEFAULTS: Partial<Params> = { repeat: 1, warmup: 0, data: "random" };

export const DEFAULT_ENGINE: Record<TargetKind, EngineName> = {
  fs: "fio",
  block: "fio",
  s3: "s3",
  ipfs: "ipfs",
};

const ENGINE_PARAMS = new Map<EngineName, ReadonlySet<ParamName>>();

export function engineParams(engine: EngineName): ReadonlySet<ParamName> {
  let params = ENGINE_PARAMS.get(engine);
  if (!params) ENGINE_PARAMS.set(engine, (params = new Set([...COMMON_PARAMS, ...ENGINES[engine].params])));
  return params;
}
