/**
 * The sdk call-sequence format (`sdk/<case-id>.json`, format "benchspec-sdk/1"): what the built-in S3 and
 * IPFS engines execute for one case, and what another runner can execute without benchspec. Here: the
 * envelope (header, repetition, concurrency groups) and the blocks every engine's call schema is made of;
 * each engine's calls are in its folder (engines/<name>/sdk-schema.ts), and the document, their union, in
 * engines/sdk-schema.ts — the single source of truth schema/sdk.schema.json is generated from (`benchspec
 * schema`). The emitters in s3/sdk.ts and ipfs/sdk.ts build values of its types; docs/sdk-format.md
 * explains it.
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
import { LATENCY_METRICS } from "../rows/metric-names.js";
import type { Case, CaseParams } from "../plan/types.js";
import { meanSize } from "../rows/sizes.js";
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

/* ---------- building blocks ---------- */

const SAFE = "A-Za-z0-9._/-";
const indexed = (what: string) =>
  z
    .string()
    .regex(new RegExp(`^[${SAFE}]*\\{i\\}[${SAFE}]*$`), `${what} must contain {i} and only ${SAFE}`)
    .describe(`${what}; {i} is replaced by the operation's index`);

export const keyPattern = indexed("object key below the case prefix");
export const seedPattern = indexed(
  "data seed: the payload is derived from (runId, seed[, pass]) — unique per run, repetition and object",
);
export const refPattern = indexed("name of the CIDs an add produced, for later cat, pin/rm and block/rm");
export const subPrefix = z
  .string()
  .regex(/^[A-Za-z0-9._-]+\/$/, "a repetition prefix: one path segment ending in /")
  .describe("a prefix below the case prefix");

export const bytes = z.number().int().min(0).describe("bytes");
export const positive = z.number().int().min(1);

const seed = {
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 32 - 1)
    .optional()
    .describe("default 0"),
};
/**
 * A size drawn per operation: the draw of operation i is a function of the distribution, its seed and i
 * alone (docs/sdk-format.md, "Drawn sizes", gives the function), so the GetObject of object i expects what
 * its PutObject wrote.
 */
export const drawnSize = z
  .union([
    z.strictObject({ uniform: z.strictObject({ min: positive, max: positive }), ...seed }),
    z.strictObject({
      lognormal: z.strictObject({ median: positive, spread: z.number().gt(1), min: positive, max: positive }),
      ...seed,
    }),
    z.strictObject({
      buckets: z.array(z.strictObject({ size: positive, percent: z.number().gt(0).max(100) })).min(1),
      ...seed,
    }),
  ])
  .describe("drawn per operation from a distribution: the same sizes for the same seed and index");
/** An object's size: bytes, or drawn per object. */
export const objectSize = z.union([bytes, drawnSize]);

/** Operations `from`…`from+count-1`, in that order; `{i}` in the entry's patterns is the index. */
export const batch = {
  from: z.number().int().min(0).describe("index of the first operation"),
  count: positive.describe("number of operations this entry stands for"),
};

/** A string written exactly as in the spec: literal text and `${env:NAME}` references, never substituted. */
export const asWritten = z
  .string()
  .min(1)
  .describe("as written in the spec; ${env:NAME} references are substituted by the executor at run time");
/** Only `${env:NAME}` references: how credentials appear (their values never do). */
export const envOnly = z
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

export const autotune = z
  .strictObject({
    param: z
      .enum(["concurrency", "rate"])
      .optional()
      .describe(
        "what the rounds set: the concurrency (absent: concurrency) or the open loop's operations per second",
      ),
    rounds: z.array(positive).min(1).describe("the ramp: the value of each round, in order"),
    stopWhenGainBelow: z
      .number()
      .min(0)
      .optional()
      .describe("percent: stop after the first round whose throughput gain over the previous is below this"),
    bound: z
      .strictObject({
        metric: z.enum(LATENCY_METRICS),
        atMost: z.number().positive().describe("seconds"),
      })
      .optional()
      .describe(
        "stop at the first round whose latency figure exceeds atMost (or whose client fell behind its schedule), then bisect between it and the last round that met the bound; the highest value that met it is chosen",
      ),
    resolution: z
      .number()
      .positive()
      .optional()
      .describe(
        "percent: with bound, bisect until the value that met it and the one that missed are this close (default 10)",
      ),
  })
  .describe(
    "run the measured operations once per round (pass = round index), at the round's value; stop by the gain rule or the bound rule (one of them is given)",
  );

/** A concurrency group: `concurrency` workers take the next operation from the ordered list until it is empty. */
export const group = <O extends z.ZodType>(op: O) =>
  z.strictObject({
    concurrency: positive.describe("operations in flight (workers sharing one ordered queue)"),
    ops: z.array(op).min(1).describe("the ordered operation list (batches expand in index order)"),
  });

export const measured = <O extends z.ZodType>(op: O) =>
  z.strictObject({
    concurrency: positive.describe("operations in flight; with autotune, the first round's"),
    autotune: autotune.optional(),
    duration: z
      .number()
      .positive()
      .optional()
      .describe("seconds: repeat the list (pass 0, 1, …) until this much time has passed"),
    sample: z.number().positive().optional().describe("seconds between throughput time-series points"),
    rate: z
      .strictObject({
        opsPerSecond: z.number().positive().describe("the scheduled starts' mean rate"),
        arrivals: z
          .enum(["constant", "poisson"])
          .describe("constant: operation n starts at n ÷ rate; poisson: exponential gaps of mean 1 ÷ rate"),
        seed: z.string().describe("poisson: the gaps' generator seed (loadSchedule in the reference runner)"),
      })
      .optional()
      .describe(
        "open loop: operation n of the list starts at its scheduled instant (or when a worker frees up, if later); latency is measured from the scheduled instant",
      ),
    ops: z.array(op).min(1).describe("the ordered operation list (batches expand in index order)"),
  });

export const repetitionHead = {
  repetition: positive.describe("1-based, counted separately for warm-ups and measured repetitions"),
  warmup: z.boolean().describe("a warm-up: executed, not counted"),
};

export const header = {
  format: z.literal(SDK_FORMAT),
  generator: z.string().describe("benchspec <version>"),
  spec: z.string().describe("the spec's name"),
  specHash: z.string().regex(/^[0-9a-f]{64}$/),
  case: z.string().regex(/^[A-Za-z0-9._-]+$/),
  workload: z.string(),
};

/** The type of a document's data payload. */
export type SdkData = z.output<typeof SdkDataSchema>;
/** What an emitter builds; jsonArtifact() adds the header fields. */
export type SdkBody<D> = Omit<D, "format" | "generator" | "spec" | "specHash">;

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

/** The ramp of a case's autotune (start, ×factor, up to max), if it has one. */
export function caseRounds(c: Case): number[] | undefined {
  const tune = c.params.autotune;
  return tune ? autotuneRounds(tune.start, tune.factor, tune.max) : undefined;
}

/**
 * What a compiled script runs of a case's load: the rounds of an autotune it can run (the gain rule on the
 * concurrency) and the concurrency of its first round, or the one setting it measures otherwise.
 */
export function scriptLoad(c: Case): { concurrency: number; rounds?: number[]; stopWhenGainBelow?: number } {
  const tune = c.params.autotune;
  if (tune?.param !== "concurrency") return { concurrency: param(c, "concurrency") };
  if (tune.stopWhenGainBelow === undefined) return { concurrency: tune.start };
  const rounds = caseRounds(c)!;
  return { concurrency: rounds[0]!, rounds, stopWhenGainBelow: tune.stopWhenGainBelow };
}

/** The measured group of a case around its operation list: concurrency, autotune, duration, sample, rate. */
export function measuredGroup<O>(c: Case, ops: O[]) {
  const rounds = caseRounds(c);
  const tune = c.params.autotune;
  const tunesRate = tune?.param === "rate";
  const rate = tunesRate ? { opsPerSecond: rounds![0]! } : c.params.rate;
  return {
    concurrency: rounds && !tunesRate ? rounds[0]! : param(c, "concurrency"),
    ...(rounds &&
      tune && {
        autotune: {
          ...(tunesRate && { param: "rate" as const }),
          rounds,
          ...(tune.stopWhenGainBelow !== undefined && { stopWhenGainBelow: tune.stopWhenGainBelow }),
          ...(tune.bound && { bound: tune.bound }),
          ...(tune.resolution !== undefined && { resolution: tune.resolution }),
        },
      }),
    ...(c.params.duration !== undefined && { duration: c.params.duration }),
    ...(c.params.sample !== undefined && { sample: c.params.sample }),
    ...(rate && {
      rate: {
        opsPerSecond:
          "opsPerSecond" in rate ? rate.opsPerSecond : rate.bytesPerSecond / meanSize(param(c, "size")),
        arrivals: c.params.arrivals ?? "constant",
        seed: c.id,
      },
    }),
    ops,
  };
}

/** Unmeasured setup runs at the case's concurrency (the largest round when its concurrency is autotuned). */
export function setupConcurrency(c: Case): number {
  const rounds = caseRounds(c);
  return rounds && c.params.autotune?.param === "concurrency"
    ? rounds[rounds.length - 1]!
    : param(c, "concurrency");
}

/** Reads and checks a case's compiled call sequence from a run's artifacts (what the engines execute). */
export async function readSdkDocument<S extends z.ZodType>(
  schema: S,
  artifactsDir: string,
  caseId: string,
): Promise<z.output<S>> {
  return schema.parse(JSON.parse(await readFile(join(artifactsDir, sdkArtifactPath(caseId)), "utf8")));
}
