/**
 * The sdk call-sequence format (`sdk/<case-id>.json`, format "benchspec-sdk/1"): what the built-in S3 and
 * IPFS engines execute for one case, and what another runner can execute without benchspec. This zod schema
 * is the single source of truth: schema/sdk.schema.json is generated from it (`benchspec schema`), the
 * emitters in s3/sdk.ts and ipfs/sdk.ts build values of its types, and docs/sdk-format.md explains it.
 *
 * The shape, in one breath: a document names its target (never a resolved secret), a key prefix holding the
 * `{runId}` placeholder, the payload kind, and its repetitions (warm-ups first). Each repetition has an
 * unmeasured setup group, the measured group (concurrency N over an ordered operation list), and cleanup
 * steps. Operations come in batches: one entry stands for `count` operations with indices from…from+count-1,
 * and `{i}` in its key/seed/ref patterns is replaced by the index — so 50 or 10,000 objects are one entry.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import type { Case, CaseParams } from "../plan/types.js";
import type { Artifact, CaseArtifacts, CompileContext } from "./types.js";

export const SDK_FORMAT = "benchspec-sdk/1";
export const SDK_SCHEMA_FILE = "sdk.schema.json";
export const SDK_SCHEMA_ID = `https://benchspec.dev/schema/${SDK_SCHEMA_FILE}`;
/** Where a case's call sequence is written, relative to the compile output directory. */
export const sdkArtifactPath = (caseId: string) => `sdk/${caseId}.json`;

/** One call-sequence file per case. */
export function sdkArtifacts(
  cases: readonly Case[],
  ctx: CompileContext,
  build: (c: Case, ctx: CompileContext) => Artifact,
): CaseArtifacts {
  return { files: cases.map((c) => build(c, ctx)), filesOf: (c) => [sdkArtifactPath(c.id)] };
}

/** The placeholders an executor substitutes. */
export const RUN_ID_PLACEHOLDER = "{runId}";
export const INDEX_PLACEHOLDER = "{i}";
/** What a run id substituted for `{runId}` may contain (it becomes part of object keys). */
export const RUN_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
/** Most keys one DeleteObjects request may carry (an S3 limit). */
export const DELETE_BATCH = 1000;
/** Most parts one multipart upload may have (an S3 limit). */
export const MAX_PARTS = 10_000;

/* ---------- building blocks ---------- */

const SAFE = "A-Za-z0-9._/-";
const indexed = (what: string) =>
  z
    .string()
    .regex(new RegExp(`^[${SAFE}]*\\{i\\}[${SAFE}]*$`), `${what} must contain {i} and only ${SAFE}`)
    .describe(`${what}; {i} is replaced by the operation's index`);

const keyPattern = indexed("object key below the case prefix");
const seedPattern = indexed(
  "data seed: the payload is derived from (runId, seed[, pass]) — unique per run, repetition and object",
);
const refPattern = indexed("name of the CIDs an add produced, for later cat, pin/rm and block/rm");
const subPrefix = z
  .string()
  .regex(/^[A-Za-z0-9._-]+\/$/, "a repetition prefix: one path segment ending in /")
  .describe("a prefix below the case prefix");

const bytes = z.number().int().min(0).describe("bytes");
const positive = z.number().int().min(1);

/** Operations `from`…`from+count-1`, in that order; `{i}` in the entry's patterns is the index. */
const batch = {
  from: z.number().int().min(0).describe("index of the first operation"),
  count: positive.describe("number of operations this entry stands for"),
};

/** A string written exactly as in the spec: literal text and `${env:NAME}` references, never substituted. */
const asWritten = z
  .string()
  .min(1)
  .describe("as written in the spec; ${env:NAME} references are substituted by the executor at run time");
/** Only `${env:NAME}` references: how credentials appear (their values never do). */
const envOnly = z
  .string()
  .regex(/^(?:\$\{env:[A-Za-z_][A-Za-z0-9_]*\})+$/, "only ${env:NAME} references")
  .describe("${env:NAME}: the executor reads the variable at run time");

export const SdkDataSchema = z
  .union([
    z.enum(["random", "zero"]),
    z.strictObject({ compressible: z.number().min(0).max(100).describe("percent of each block") }),
  ])
  .describe(
    "random: unique incompressible bytes from (runId, seed, pass); zero: all zero (seeds unused); compressible: that share of each block is zeros",
  )
  .meta({ id: "Data" });

const autotune = z
  .strictObject({
    rounds: z.array(positive).min(1).describe("the concurrency of each round, in order"),
    stopWhenGainBelow: z
      .number()
      .min(0)
      .describe("percent: stop after the first round whose throughput gain over the previous is below this"),
  })
  .describe("run the measured operations once per round (pass = round index), at the round's concurrency");

/** A concurrency group: `concurrency` workers take the next operation from the ordered list until it is empty. */
const group = <O extends z.ZodType>(op: O) =>
  z.strictObject({
    concurrency: positive.describe("operations in flight (workers sharing one ordered queue)"),
    ops: z.array(op).min(1).describe("the ordered operation list (batches expand in index order)"),
  });

const measured = <O extends z.ZodType>(op: O) =>
  z.strictObject({
    concurrency: positive.describe("operations in flight; with autotune, the first round's"),
    autotune: autotune.optional(),
    duration: z
      .number()
      .positive()
      .optional()
      .describe("seconds: repeat the list (pass 0, 1, …) until this much time has passed"),
    sample: z.number().positive().optional().describe("seconds between throughput time-series points"),
    ops: z.array(op).min(1).describe("the ordered operation list (batches expand in index order)"),
  });

const repetitionHead = {
  repetition: positive.describe("1-based, counted separately for warm-ups and measured repetitions"),
  warmup: z.boolean().describe("a warm-up: executed, not counted"),
};

const header = {
  format: z.literal(SDK_FORMAT),
  generator: z.string().describe("benchspec <version>"),
  spec: z.string().describe("the spec's name"),
  specHash: z.string().regex(/^[0-9a-f]{64}$/),
  case: z.string().regex(/^[A-Za-z0-9._-]+$/),
  workload: z.string(),
};

/* ---------- S3 ---------- */

const s3Credentials = z
  .discriminatedUnion("from", [
    z.strictObject({ from: z.literal("launch").describe("generated by the launched server") }),
    z.strictObject({ from: z.literal("chain").describe("the AWS SDK's default credential chain") }),
    z.strictObject({
      from: z.literal("env"),
      accessKeyId: envOnly.optional(),
      secretAccessKey: envOnly.optional(),
    }),
    z.strictObject({
      from: z
        .literal("spec")
        .describe("written literally in the spec; never copied into an artifact — use ${env:NAME}"),
    }),
  ])
  .describe("where credentials come from; a credential value never appears here");

export const S3TargetSchema = z.strictObject({
  name: z.string().describe("the target's name in the spec"),
  kind: z.literal("s3"),
  launch: z.literal("minio").optional().describe("start a throwaway local MinIO (and create the bucket)"),
  endpoint: asWritten.optional(),
  bucket: asWritten.describe("the bucket (must exist unless launched); never emptied wholesale"),
  region: asWritten.optional(),
  pathStyle: z.boolean().optional(),
  credentials: s3Credentials,
  keep: z.boolean().optional().describe("keep the objects: cleanup only aborts incomplete uploads"),
});

const partSpec = {
  partSize: positive.describe("bytes of every part but the last"),
  parts: positive.max(MAX_PARTS).describe("number of parts, numbered 1…parts"),
  lastPartSize: positive.describe("bytes of the last part"),
  queue: positive.describe("parts in flight per object"),
};

const putObject = z
  .strictObject({ op: z.literal("PutObject"), ...batch, key: keyPattern, seed: seedPattern, size: bytes })
  .meta({ id: "PutObject" });

const multipartUpload = z
  .strictObject({
    op: z.literal("MultipartUpload"),
    ...batch,
    key: keyPattern,
    seed: seedPattern,
    size: bytes,
    calls: z.tuple([
      z.strictObject({ call: z.literal("CreateMultipartUpload") }),
      z
        .strictObject({ call: z.literal("UploadParts"), ...partSpec })
        .describe("UploadPart for partNumber 1…parts; part n holds bytes (n-1)·partSize… of the payload"),
      z
        .strictObject({ call: z.literal("CompleteMultipartUpload") })
        .describe("with every part's ETag, in part order; on failure AbortMultipartUpload"),
    ]),
  })
  .describe("per object: CreateMultipartUpload, UploadParts, CompleteMultipartUpload")
  .meta({ id: "MultipartUpload" });

const upload = z.discriminatedUnion("op", [putObject, multipartUpload]);

const getObject = z.strictObject({
  op: z.literal("GetObject"),
  ...batch,
  key: keyPattern,
  size: bytes.describe("expected bytes; the body is always read to its end"),
  ranges: z
    .strictObject(partSpec)
    .optional()
    .describe("read as ranged GetObject calls (Range: bytes=…), queue of them in flight per object"),
});

const headObject = z.strictObject({
  op: z.literal("HeadObject"),
  ...batch,
  key: keyPattern,
  size: bytes.describe("expected ContentLength"),
});

const deleteObject = z.strictObject({ op: z.literal("DeleteObject"), ...batch, key: keyPattern });

const listObjects = z
  .strictObject({
    op: z.literal("ListObjectsV2"),
    ...batch,
    prefix: subPrefix,
    maxKeys: positive.max(1000),
    expectKeys: z.number().int().min(0).describe("keys one full listing returns"),
  })
  .describe("each of the count operations is one full listing of the prefix (following continuation tokens)");

const s3MeasuredOp = z.discriminatedUnion("op", [
  putObject,
  multipartUpload,
  getObject,
  headObject,
  deleteObject,
  listObjects,
]);

const s3CleanupOp = z.discriminatedUnion("op", [
  z
    .strictObject({ op: z.literal("DeleteObjects"), ...batch, key: keyPattern })
    .describe(`delete exactly these keys, at most ${DELETE_BATCH} per DeleteObjects request`),
  z
    .strictObject({ op: z.literal("AbortMultipartUploads"), prefix: subPrefix })
    .describe("ListMultipartUploads under the prefix, then AbortMultipartUpload for each"),
]);

export const S3SdkDocumentSchema = z
  .strictObject({
    ...header,
    engine: z.literal("s3"),
    op: z.enum(["put", "get", "delete", "stat", "list", "mixed"]),
    target: S3TargetSchema,
    prefix: z
      .string()
      .regex(/^benchspec\/[A-Za-z0-9._-]+\/\{runId\}\/[A-Za-z0-9._-]+\/$/)
      .describe("benchspec/<spec>/{runId}/<case-id>/: every key of the case is this prefix + a key pattern"),
    data: SdkDataSchema,
    repetitions: z
      .array(
        z.strictObject({
          ...repetitionHead,
          setup: group(upload).optional().describe("unmeasured: the objects the measured operations need"),
          measured: measured(s3MeasuredOp),
          cleanup: z.array(s3CleanupOp).describe("always run, also after a failure or Ctrl-C"),
        }),
      )
      .min(1),
  })
  .meta({ id: "S3Document", title: "benchspec sdk call sequence (S3)" });

/* ---------- IPFS ---------- */

export const IpfsTargetSchema = z.strictObject({
  name: z.string(),
  kind: z.literal("ipfs"),
  launch: z.literal("kubo").optional().describe("start a throwaway offline Kubo node, API on loopback"),
  fresh: z
    .enum(["once", "per-case", "per-repetition"])
    .optional()
    .describe("with launch: once = one node for the whole run; see freshNode on each repetition"),
  api: asWritten
    .optional()
    .describe(
      "an existing node's RPC API; never wiped or garbage-collected, only the run's own blocks removed",
    ),
  keep: z.boolean().optional().describe("keep what was added: no cleanup"),
});

const cidRef = z.strictObject({ ref: refPattern }).describe("the CID(s) produced by the add with this ref");

const add = z
  .strictObject({
    op: z.literal("add"),
    ...batch,
    ref: refPattern,
    seed: seedPattern,
    size: bytes,
    chunker: z.string().describe("Kubo chunker: size-N, rabin[-min-avg-max] or buzhash"),
    cidVersion: z.literal([0, 1]),
    rawLeaves: z.boolean(),
    pin: z.boolean(),
  })
  .meta({ id: "IpfsAdd" });

const cat = z.strictObject({
  op: z.literal("cat"),
  ...batch,
  cid: cidRef,
  size: bytes.describe("expected bytes; the stream is always read to its end"),
});

const pinRm = z
  .strictObject({ op: z.literal("pin/rm"), ...batch, cid: cidRef })
  .describe(
    "unpin every CID remembered under the refs; on an external node not one that was pinned before the case began",
  );
const blockRm = z
  .strictObject({ op: z.literal("block/rm"), ...batch, cid: cidRef })
  .describe(
    "remove exactly the blocks the adds under the refs stored: each CID, every block `refs -r` lists below it " +
      "(offline) and the directory block Kubo's add leaves besides (docs/sdk-format.md); listed before any " +
      "cleanup step runs; Kubo keeps a block that is still pinned",
  );
const repoGc = z
  .strictObject({ op: z.literal("repo/gc") })
  .describe("garbage-collect the whole node: only for a launched (throwaway) node, never an external one");

export const IpfsSdkDocumentSchema = z
  .strictObject({
    ...header,
    engine: z.literal("ipfs"),
    op: z.enum(["put", "get"]),
    target: IpfsTargetSchema,
    data: SdkDataSchema,
    repetitions: z
      .array(
        z.strictObject({
          ...repetitionHead,
          freshNode: z
            .boolean()
            .describe(
              "start this repetition on a freshly initialized node (stop and discard the previous one)",
            ),
          setup: group(add).optional().describe("unmeasured: the content the measured operations need"),
          measured: measured(z.discriminatedUnion("op", [add, cat])),
          cleanup: z
            .array(z.discriminatedUnion("op", [pinRm, blockRm, repoGc]))
            .describe("always run, also after a failure or Ctrl-C"),
        }),
      )
      .min(1),
  })
  .superRefine((doc, ctx) => {
    if (doc.target.launch !== undefined) return;
    doc.repetitions.forEach((repetition, r) =>
      repetition.cleanup.forEach((step, s) => {
        if (step.op === "repo/gc")
          ctx.addIssue({
            code: "custom",
            path: ["repetitions", r, "cleanup", s],
            message:
              "repo/gc only on a launched node: on an external node it collects the user's unpinned blocks",
          });
      }),
    );
  })
  .meta({ id: "IpfsDocument", title: "benchspec sdk call sequence (IPFS)" });

export const SdkDocumentSchema = z
  .discriminatedUnion("engine", [S3SdkDocumentSchema, IpfsSdkDocumentSchema])
  .meta({
    title: "benchspec sdk call sequence",
    description: "One case of a compiled benchspec plan as S3/IPFS calls (docs/sdk-format.md)",
  });

export type SdkDocument = z.output<typeof SdkDocumentSchema>;
export type S3SdkDocument = z.output<typeof S3SdkDocumentSchema>;
export type IpfsSdkDocument = z.output<typeof IpfsSdkDocumentSchema>;
/** What an emitter builds; jsonArtifact() adds the header fields. */
export type SdkBody<D> = Omit<D, "format" | "generator" | "spec" | "specHash">;
export type S3Repetition = S3SdkDocument["repetitions"][number];
export type IpfsRepetition = IpfsSdkDocument["repetitions"][number];
export type S3Op = S3Repetition["measured"]["ops"][number];
export type Measured = S3Repetition["measured"] | IpfsRepetition["measured"];
export type SdkData = z.output<typeof SdkDataSchema>;

/** schema/sdk.schema.json: generated from the zod schema, never by hand. */
export function sdkJsonSchema(): string {
  const schema = z.toJSONSchema(SdkDocumentSchema, { target: "draft-2020-12", io: "output" });
  return `${JSON.stringify({ $id: SDK_SCHEMA_ID, ...schema }, null, 2)}\n`;
}

/* ---------- helpers shared by the emitters and executors ---------- */

/** A pattern with `{i}` replaced by an operation's index. */
export const atIndex = (pattern: string, index: number) =>
  pattern.replaceAll(INDEX_PLACEHOLDER, String(index));

/** The indices a batch entry stands for. */
export function* batchIndices(entry: { from: number; count: number }): Generator<number> {
  for (let i = entry.from; i < entry.from + entry.count; i++) yield i;
}

/** The seed of one object in one pass: passes after the first (autotune rounds, time-based loops) get `/p<pass>`. */
export const passSeed = (seed: string, pass: number) => (pass === 0 ? seed : `${seed}/p${pass}`);

/** The concurrency of each autotune round: start, ×factor (at least +1), capped at max. */
export function autotuneRounds(start: number, factor: number, max: number): number[] {
  const rounds = [Math.min(start, max)];
  for (let last = rounds[0]!; last < max;) {
    last = Math.min(max, Math.max(last + 1, Math.round(last * factor)));
    rounds.push(last);
  }
  return rounds;
}

/** Parts of an object of `size` bytes in parts of `partSize`. */
export function partsOf(size: number, partSize: number, queue: number) {
  const parts = Math.max(1, Math.ceil(size / partSize));
  return { partSize, parts, lastPartSize: size - (parts - 1) * partSize, queue };
}

/* ---------- emitter helpers ---------- */

/** A resolved parameter the engine's defaults guarantee; missing means the plan is broken, not the spec. */
export function param<K extends keyof CaseParams>(c: Case, key: K): NonNullable<CaseParams[K]> {
  const value = c.params[key];
  if (value === undefined || value === null) throw new Error(`case ${c.id} has no resolved "${String(key)}"`);
  return value as NonNullable<CaseParams[K]>;
}

export interface RepetitionSlot {
  repetition: number;
  warmup: boolean;
  /** The repetition's key segment and seed part: w1, w2… for warm-ups, r1, r2… for measured ones. */
  tag: string;
}

/** Warm-ups first, then the measured repetitions, each numbered from 1. */
export function repetitionSlots(c: Case): RepetitionSlot[] {
  const slots: RepetitionSlot[] = [];
  for (let n = 1; n <= c.params.warmup; n++) slots.push({ repetition: n, warmup: true, tag: `w${n}` });
  for (let n = 1; n <= c.params.repeat; n++) slots.push({ repetition: n, warmup: false, tag: `r${n}` });
  return slots;
}

/** The autotune rounds of a case, if it tunes its concurrency. */
export function caseRounds(c: Case): number[] | undefined {
  const tune = c.params.autotune;
  return tune ? autotuneRounds(tune.start, tune.factor, tune.max) : undefined;
}

/** The measured group of a case around its operation list: concurrency, autotune, duration, sample. */
export function measuredGroup<O>(c: Case, ops: O[]) {
  const rounds = caseRounds(c);
  const tune = c.params.autotune;
  return {
    concurrency: rounds ? rounds[0]! : param(c, "concurrency"),
    ...(rounds && tune && { autotune: { rounds, stopWhenGainBelow: tune.stopWhenGainBelow } }),
    ...(c.params.duration !== undefined && { duration: c.params.duration }),
    ...(c.params.sample !== undefined && { sample: c.params.sample }),
    ops,
  };
}

/** Unmeasured setup runs at the case's concurrency (the largest round when autotuned). */
export function setupConcurrency(c: Case): number {
  const rounds = caseRounds(c);
  return rounds ? rounds[rounds.length - 1]! : param(c, "concurrency");
}

/** Reads and checks a case's compiled call sequence from a run's artifacts (what the engines execute). */
export async function readSdkDocument<S extends z.ZodType>(
  schema: S,
  artifactsDir: string,
  caseId: string,
): Promise<z.output<S>> {
  return schema.parse(JSON.parse(await readFile(join(artifactsDir, sdkArtifactPath(caseId)), "utf8")));
}
