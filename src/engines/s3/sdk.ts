/**
 * S3 call sequences (`sdk/<case-id>.json`, format in ../sdk-format.ts and docs/sdk-format.md). Per
 * repetition: upload the objects the operation needs (unmeasured), run the measured operations as one
 * concurrency group, then delete exactly the keys the repetition created and abort its incomplete uploads.
 */
import type { Case } from "../../plan/types.js";
import type { Target } from "../../spec/schema.js";
import { envRefs } from "../../spec/strings.js";
import {
  measuredGroup,
  param,
  partsOf,
  repetitionSlots,
  RUN_ID_PLACEHOLDER,
  sdkArtifactPath,
  SDK_FORMAT,
  setupConcurrency,
  type RepetitionSlot,
  type SdkBody,
} from "../../emit/sdk-format.js";
import {
  MAX_PARTS,
  S3SdkDocumentSchema,
  type S3Op,
  type S3Repetition,
  type S3SdkDocument,
} from "./sdk-schema.js";
import { BenchspecError } from "../../platform/errors.js";
import type { Artifact, CompileContext } from "../../emit/types.js";
import { jsonArtifact } from "../../emit/writer.js";
import { runKeyPrefix } from "../../targets/s3/keys.js";
import { largestSize, type SizeParam } from "../../rows/sizes.js";

const DEFAULT_BUCKET = "benchspec";
const LIST_PAGE = 1000;

type S3Target = Extract<Target, { kind: "s3" }>;
type Upload = Extract<S3Op, { op: "PutObject" | "MultipartUpload" }>;

export function s3SdkArtifact(c: Case, ctx: CompileContext): Artifact {
  const target = ctx.plan.targets[c.target];
  if (target?.kind !== "s3")
    throw new BenchspecError("not-compilable", `case ${c.id}: target "${c.target}" is not an s3 target`);
  const keep = target.keep === true;
  if (c.op === "delete" && (c.params.duration !== undefined || c.params.autotune)) {
    throw new BenchspecError(
      "not-compilable",
      `workload "${c.workload}": a delete cannot be time-based or autotuned (each object can be deleted once)`,
    );
  }
  const body: SdkBody<S3SdkDocument> = {
    case: c.id,
    workload: c.workload,
    engine: "s3",
    op: s3Op(c),
    target: s3Target(c.target, target),
    prefix: `${runKeyPrefix(ctx.plan.name, RUN_ID_PLACEHOLDER)}${c.id}/`,
    data: c.params.data ?? "random",
    repetitions: repetitionSlots(c).map((slot) => repetition(c, slot, keep)),
  };
  return { path: sdkArtifactPath(c.id), content: jsonArtifact(ctx, SDK_FORMAT, body) };
}

function s3Op(c: Case): S3SdkDocument["op"] {
  const op = S3SdkDocumentSchema.shape.op.options.find((name) => name === c.op);
  if (op) return op;
  throw new BenchspecError("not-compilable", `case ${c.id}: the s3 engine has no "${c.op}"`);
}

/** The target by name, with addresses as written and credentials only as references. */
function s3Target(name: string, t: S3Target): S3SdkDocument["target"] {
  return {
    name,
    kind: "s3",
    ...(t.launch !== undefined && { launch: t.launch }),
    ...(t.endpoint !== undefined && { endpoint: t.endpoint }),
    bucket: t.bucket ?? DEFAULT_BUCKET,
    ...(t.region !== undefined && { region: t.region }),
    ...(t.pathStyle !== undefined && { pathStyle: t.pathStyle }),
    credentials: credentials(t),
    ...(t.keep !== undefined && { keep: t.keep }),
  };
}

/** A value that is nothing but `${env:NAME}` references; anything else could be (part of) a secret. */
function isEnvOnly(value: string): boolean {
  const refs = envRefs(value);
  return (
    "names" in refs && refs.names.length > 0 && value.replace(/\$\{env:[A-Za-z_][A-Za-z0-9_]*\}/g, "") === ""
  );
}

function credentials(t: S3Target): S3SdkDocument["target"]["credentials"] {
  if (t.launch !== undefined) return { from: "launch" };
  if (t.accessKey === undefined && t.secretKey === undefined) return { from: "chain" };
  if ([t.accessKey, t.secretKey].some((value) => value !== undefined && !isEnvOnly(value)))
    return { from: "spec" };
  return {
    from: "env",
    ...(t.accessKey !== undefined && { accessKeyId: t.accessKey }),
    ...(t.secretKey !== undefined && { secretAccessKey: t.secretKey }),
  };
}

function repetition(c: Case, slot: RepetitionSlot, keep: boolean): S3Repetition {
  const objects = param(c, "objects");
  const size = param(c, "size");
  const range = { from: 0, count: objects };
  const key = `${slot.tag}/o{i}`;
  const prefix = `${slot.tag}/`;
  const parts = partPlan(c, size);
  /** Uploads of `count` objects named `<tag>/<name>{i}` from index `from`. */
  const uploadOf = (name: string, from: number, count: number): Upload => {
    const batch = {
      from,
      count,
      key: `${slot.tag}/${name}{i}`,
      seed: `${c.id}/${slot.tag}/${name}{i}`,
      size,
    };
    return parts
      ? {
          op: "MultipartUpload",
          ...batch,
          calls: [
            { call: "CreateMultipartUpload" },
            { call: "UploadParts", ...parts },
            { call: "CompleteMultipartUpload" },
          ],
        }
      : { op: "PutObject", ...batch };
  };
  const upload = uploadOf("o", 0, objects);
  /** Beyond the `o` objects, a mixed workload writes `m` objects and deletes `d` objects it uploaded first. */
  const extra = {
    setup: [] as Upload[],
    cleanup: [] as { op: "DeleteObjects"; from: number; count: number; key: string }[],
  };

  let ops: S3Op[];
  switch (c.op) {
    case "put":
      ops = [upload];
      break;
    case "get":
      ops = [{ op: "GetObject", ...range, key, size, ...(parts && { ranges: parts }) }];
      break;
    case "stat":
      ops = [{ op: "HeadObject", ...range, key, size }];
      break;
    case "delete":
      ops = [{ op: "DeleteObject", ...range, key }];
      break;
    case "list": {
      // One full listing per worker (per worker of the largest round when autotuned).
      const listings = setupConcurrency(c);
      ops = [
        { op: "ListObjectsV2", from: 0, count: listings, prefix, maxKeys: LIST_PAGE, expectKeys: objects },
      ];
      break;
    }
    case "mixed": {
      const sequence = mixSequence(param(c, "mix"), objects);
      const next = { get: 0, stat: 0, put: 0, delete: 0 };
      ops = sequence.map((kind): S3Op => {
        const i = next[kind]++;
        switch (kind) {
          case "get":
            return {
              op: "GetObject",
              from: i % objects,
              count: 1,
              key,
              size,
              ...(parts && { ranges: parts }),
            };
          case "stat":
            return { op: "HeadObject", from: i % objects, count: 1, key, size };
          case "put":
            return uploadOf("m", i, 1);
          case "delete":
            return { op: "DeleteObject", from: i, count: 1, key: `${slot.tag}/d{i}` };
        }
      });
      if (next.delete > 0) extra.setup.push(uploadOf("d", 0, next.delete));
      for (const [name, count] of [
        ["m", next.put],
        ["d", next.delete],
      ] as const) {
        if (count > 0)
          extra.cleanup.push({ op: "DeleteObjects", from: 0, count, key: `${slot.tag}/${name}{i}` });
      }
      break;
    }
    default:
      throw new BenchspecError("not-compilable", `case ${c.id}: the s3 engine has no "${c.op}"`);
  }

  return {
    repetition: slot.repetition,
    warmup: slot.warmup,
    ...(c.op !== "put" && { setup: { concurrency: setupConcurrency(c), ops: [upload, ...extra.setup] } }),
    measured: measuredGroup(c, ops),
    cleanup: [
      ...(keep ? [] : [{ op: "DeleteObjects" as const, ...range, key }, ...extra.cleanup]),
      { op: "AbortMultipartUploads", prefix },
    ],
  };
}

type MixKind = "get" | "stat" | "put" | "delete";
export const MIX_KINDS: readonly MixKind[] = ["get", "stat", "put", "delete"];

/** Each kind's count of a mixed pass of `total` operations, in MIX_KINDS order: its share, largest remainders. */
export function mixCounts(mix: Partial<Record<MixKind, number>>, total: number): number[] {
  const exact = MIX_KINDS.map((kind) => ((mix[kind] ?? 0) * total) / 100);
  const counts = exact.map(Math.floor);
  const byRemainder = MIX_KINDS.map((_, k) => k).sort(
    (a, b) => exact[b]! - counts[b]! - (exact[a]! - counts[a]!),
  );
  for (let left = total - counts.reduce((a, b) => a + b, 0), r = 0; left > 0; left--, r++)
    counts[byRemainder[r]!]! += 1;
  return counts;
}

/**
 * A mixed workload's operations, one pass: each kind's count (mixCounts), interleaved by smooth weighted
 * round robin so that every stretch of the list — what the workers in flight are doing at any moment — has
 * the mix, not a run of gets followed by a run of puts. The compiled script's bs_s3_mix does the same.
 */
export function mixSequence(mix: Partial<Record<MixKind, number>>, total: number): MixKind[] {
  const counts = mixCounts(mix, total);
  const current = MIX_KINDS.map(() => 0);
  const sequence: MixKind[] = [];
  for (let n = 0; n < total; n++) {
    let pick = 0;
    for (let k = 0; k < MIX_KINDS.length; k++) {
      current[k]! += counts[k]!;
      if (current[k]! > current[pick]!) pick = k;
    }
    current[pick]! -= total;
    sequence.push(MIX_KINDS[pick]!);
  }
  return sequence;
}

/**
 * Multipart when the case asks for it and the object is larger than one part (like the SDKs' upload
 * helpers). Drawn sizes: every object when the largest is, each in ⌈size ÷ partSize⌉ parts.
 */
function partPlan(c: Case, size: SizeParam) {
  const multipart = c.params.multipart;
  if (!multipart || largestSize(size) <= multipart.partSize) return undefined;
  const parts = partsOf(largestSize(size), multipart.partSize, multipart.queue);
  if (parts.parts > MAX_PARTS) {
    throw new BenchspecError(
      "not-compilable",
      `workload "${c.workload}": ${parts.parts} parts of ${multipart.partSize} bytes exceed S3's ${MAX_PARTS} parts per upload; raise multipart.partSize`,
    );
  }
  return typeof size === "number" ? parts : { partSize: parts.partSize, queue: parts.queue };
}
