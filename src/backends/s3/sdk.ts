/**
 * S3 call sequences (`sdk/<case-id>.json`, format in ../sdk-format.ts and docs/sdk-format.md). Per
 * repetition: upload the objects the operation needs (unmeasured), run the measured operations as one
 * concurrency group, then delete exactly the keys the repetition created and abort its incomplete uploads.
 */
import type { Case } from "../../plan/types.js";
import type { Target } from "../../spec/schema.js";
import { envRefs } from "../../spec/strings.js";
import {
  MAX_PARTS,
  measuredGroup,
  param,
  partsOf,
  repetitionSlots,
  sdkArtifactPath,
  SDK_FORMAT,
  setupConcurrency,
  type RepetitionSlot,
  type S3Op,
  type S3Repetition,
  type S3SdkDocument,
  type SdkBody,
} from "../sdk-format.js";
import { CompileError, type Artifact, type CompileContext } from "../types.js";
import { jsonArtifact } from "../writer.js";

const DEFAULT_BUCKET = "benchspec";
const LIST_PAGE = 1000;

type S3Target = Extract<Target, { kind: "s3" }>;
type Upload = Extract<S3Op, { op: "PutObject" | "MultipartUpload" }>;

export function s3SdkArtifact(c: Case, ctx: CompileContext): Artifact {
  const target = ctx.plan.targets[c.target];
  if (target?.kind !== "s3") throw new CompileError(`case ${c.id}: target "${c.target}" is not an s3 target`);
  const keep = target.keep === true;
  if (c.op === "delete" && (c.params.duration !== undefined || c.params.autotune)) {
    throw new CompileError(
      `workload "${c.workload}": a delete cannot be time-based or autotuned (each object can be deleted once)`,
    );
  }
  const body: SdkBody<S3SdkDocument> = {
    case: c.id,
    workload: c.workload,
    engine: "s3",
    op: s3Op(c),
    target: s3Target(c.target, target),
    prefix: `benchspec/${ctx.plan.name}/{runId}/${c.id}/`,
    data: c.params.data ?? "random",
    repetitions: repetitionSlots(c).map((slot) => repetition(c, slot, keep)),
  };
  return { path: sdkArtifactPath(c.id), content: jsonArtifact(ctx, SDK_FORMAT, body) };
}

function s3Op(c: Case): S3SdkDocument["op"] {
  if (c.op === "put" || c.op === "get" || c.op === "delete" || c.op === "stat" || c.op === "list")
    return c.op;
  throw new CompileError(`case ${c.id}: the s3 engine has no "${c.op}"`);
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
  const upload: Upload = parts
    ? {
        op: "MultipartUpload",
        ...range,
        key,
        seed: `${c.id}/${slot.tag}/o{i}`,
        size,
        calls: [
          { call: "CreateMultipartUpload" },
          { call: "UploadParts", ...parts },
          { call: "CompleteMultipartUpload" },
        ],
      }
    : { op: "PutObject", ...range, key, seed: `${c.id}/${slot.tag}/o{i}`, size };

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
    default:
      throw new CompileError(`case ${c.id}: the s3 engine has no "${c.op}"`);
  }

  return {
    repetition: slot.repetition,
    warmup: slot.warmup,
    ...(c.op !== "put" && { setup: { concurrency: setupConcurrency(c), ops: [upload] } }),
    measured: measuredGroup(c, ops),
    cleanup: [
      ...(keep ? [] : [{ op: "DeleteObjects" as const, ...range, key }]),
      { op: "AbortMultipartUploads", prefix },
    ],
  };
}

/** Multipart when the case asks for it and the object is larger than one part (like the SDKs' upload helpers). */
function partPlan(c: Case, size: number) {
  const multipart = c.params.multipart;
  if (!multipart || size <= multipart.partSize) return undefined;
  const parts = partsOf(size, multipart.partSize, multipart.queue);
  if (parts.parts > MAX_PARTS) {
    throw new CompileError(
      `workload "${c.workload}": ${parts.parts} parts of ${multipart.partSize} bytes exceed S3's ${MAX_PARTS} parts per upload; raise multipart.partSize`,
    );
  }
  return parts;
}
