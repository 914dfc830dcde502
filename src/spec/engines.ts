/**
 * What the language knows of engines: the shape of an engine's facts (the target kinds it drives, its
 * operations, the workload parameters that mean something to it, its defaults) and the rules over them.
 * Which engines exist is not the language's to say: the registry above it (engines/index.ts) gives the
 * table, each engine's facts from its own folder, and the stages below it take the table as an argument.
 * Shared stages read the table and never branch on an engine's name.
 */
import type { Metric } from "../rows/metric-names.js";
import type { ParamName, Params, TargetKind } from "./schema.js";
import type { ArtifactFormat, Op } from "./words.js";

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
  /** The target kinds whose workloads use this engine when they name none (one engine per kind). */
  defaultFor: readonly TargetKind[];
  ops: readonly Op[];
  /** Parameters beyond the common ones that this engine understands. */
  params: readonly ParamName[];
  defaults: Partial<Params>;
  /** The metrics its result rows carry (what `expect` can check; see src/engines/<engine>/). */
  metrics: readonly Metric[];
  /** The parameter whose value may be drawn per operation from a distribution (rows/sizes.ts), if any. */
  drawnSize?: "size" | "bs";
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

/** The engines a build has, by name in the language's order: given by the registry (engines/index.ts). */
export type EngineTable = Readonly<Record<string, EngineInfo>>;

export const isEngineIn = (engines: EngineTable, name: string): boolean => Object.hasOwn(engines, name);

/** Defaults every engine shares, applied before the engine's own. */
export const COMMON_DEFAULTS: Partial<Params> = { repeat: 1, warmup: 0, data: "random" };

/** The engine a workload on a target of this kind uses when it names none. */
export function defaultEngine(engines: EngineTable, kind: TargetKind): string {
  const name = Object.keys(engines).find((engine) => engines[engine]!.defaultFor.includes(kind));
  if (name === undefined) throw new Error(`no engine is the default for ${kind} targets`);
  return name;
}

const ENGINE_PARAMS = new WeakMap<EngineInfo, ReadonlySet<ParamName>>();

/** The parameters that mean something to an engine: the common ones and its own. */
export function engineParams(info: EngineInfo): ReadonlySet<ParamName> {
  let params = ENGINE_PARAMS.get(info);
  if (!params) ENGINE_PARAMS.set(info, (params = new Set([...COMMON_PARAMS, ...info.params])));
  return params;
}
