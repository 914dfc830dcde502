/**
 * What each engine of the language can do: the target kinds it drives, its operations, the workload
 * parameters that mean something to it, and its defaults. A typed record, so a new engine that forgets an
 * entry is a type error; shared stages read this table and never branch on an engine's name.
 */
import { METRICS, type Metric } from "../rows/metric-names.js";
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

export const ENGINES: Record<EngineName, EngineInfo> = {
  fio: {
    formats: ["fio", "shell"],
    summary: "fio jobs against a file system directory or a block device",
    targetKinds: ["fs", "block"],
    ops: ["read", "write", "randread", "randwrite", "readwrite", "randrw"],
    params: [
      "size",
      "bs",
      "iodepth",
      "jobs",
      "read",
      "duration",
      "ramp",
      "direct",
      "precondition",
      "purge",
      "steady",
      "ioengine",
      "autotune",
    ],
    defaults: { size: 64 * 2 ** 20, bs: 4096, iodepth: 1, jobs: 1, direct: false, ioengine: "libaio" },
    metrics: METRICS,
    together: true,
  },
  dd: {
    formats: ["shell"],
    summary: "parallel dd processes behind a start barrier",
    targetKinds: ["fs", "block"],
    ops: ["read", "write"],
    params: ["bs", "count", "parallel", "direct", "autotune", "purge"],
    defaults: { bs: 2 ** 20, count: 64, parallel: 1, direct: false },
    // dd's summary line gives bytes and seconds per process: no per-operation latency.
    metrics: ["throughput", "iops", "seconds"],
    together: true,
  },
  s3: {
    formats: ["sdk", "shell"],
    summary:
      "an S3-compatible object store (SigV4 over benchspec's own HTTP/1.1 client; the AWS SDK for the control plane)",
    targetKinds: ["s3"],
    ops: ["put", "get", "delete", "stat", "list", "mixed"],
    params: ["size", "objects", "concurrency", "threads", "multipart", "duration", "autotune", "mix"],
    defaults: { size: 2 ** 20, objects: 16, concurrency: 4, threads: "auto", multipart: false },
    metrics: METRICS,
    together: false,
  },
  ipfs: {
    formats: ["sdk", "shell"],
    summary: "the Kubo RPC API (put = add, get = cat)",
    targetKinds: ["ipfs"],
    ops: ["put", "get"],
    params: ["size", "objects", "concurrency", "chunker", "cidVersion", "rawLeaves", "pin", "autotune"],
    defaults: {
      size: 2 ** 20,
      objects: 4,
      concurrency: 1,
      chunker: "size-262144",
      cidVersion: 1,
      rawLeaves: true,
      pin: true,
    },
    metrics: METRICS,
    together: false,
  },
};

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
