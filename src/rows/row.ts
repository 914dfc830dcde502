/**
 * benchspec's result row: one JSON object per line of results.ndjson, one per case × repetition × op.
 * `benchspec run` writes these, the compiled shell script prints them, `benchspec report` reads them.
 * Units: bytes, seconds, bytes per second, operations per second.
 */
import { z } from "zod";
import { ERROR_CODES, type ErrorCode } from "../platform/errors.js";
import { LATENCY_METRICS } from "./metric-names.js";
import { TelemetrySampleSchema, TelemetrySummarySchema } from "./telemetry.js";

export const RESULT_FORMAT_VERSION = 1;

const latency = z.strictObject({
  mean: z.number().optional(),
  p50: z.number().optional(),
  p90: z.number().optional(),
  p99: z.number().optional(),
  "p99.9": z.number().optional(),
});
export type Latency = z.infer<typeof latency>;

/**
 * Latencies as HdrHistogram's compressed base64 encoding (nanoseconds, 3 significant digits): what rows
 * measured apart (the hosts of one case) merge by (histogram.ts).
 */
const histograms = z.strictObject({
  latency: z.string().optional(),
  ttfb: z.string().optional(),
  serviceTime: z.string().optional(),
});

/** One part of a row's operations (an operation kind, a size class): its counts and its latency. */
const share = z.object({
  ops: z.number(),
  bytes: z.number(),
  errors: z.number(),
  latency: latency.optional(),
  histograms: histograms.optional(),
});

/** One process or worker of a parallel case (a dd process, an fio job). */
const jobResult = z.object({
  job: z.number().int(),
  bytes: z.number(),
  seconds: z.number(),
  throughput: z.number(),
  error: z.string().optional(),
  /** The host that ran it, in a row of several hosts. */
  host: z.string().optional(),
  /** The target it ran on, in a row of several targets at once. */
  target: z.string().optional(),
});

/** What a repetition measured: the figures a row has, and each host's share of a row of several hosts. */
const measuredShape = {
  ok: z.boolean(),
  error: z.string().optional(),
  /** ISO 8601 start and end of the measured interval. */
  start: z.string(),
  end: z.string(),
  bytes: z.number(),
  ops: z.number(),
  seconds: z.number(),
  /** bytes / seconds: the repetition's bytes over its time (first operation's start to last one's end). */
  throughput: z.number(),
  /** ops / seconds. */
  iops: z.number(),
};

/** One part's own numbers, inside the row of a case that ran on several hosts (or targets) at once. */
const partShape = {
  ...measuredShape,
  latency: latency.optional(),
  histograms: histograms.optional(),
  telemetry: TelemetrySummarySchema.optional(),
};
const hostResult = z.object({ host: z.string(), ...partShape });
const targetResult = z.object({ target: z.string(), ...partShape });

export const ResultRowSchema = z.object({
  v: z.literal(RESULT_FORMAT_VERSION),
  /** Where the row came from: benchspec run, a compiled script, or fio's own JSON imported by `report`. */
  source: z.enum(["run", "shell", "fio-import"]),
  spec: z.string(),
  specHash: z.string(),
  case: z.string(),
  workload: z.string(),
  target: z.string(),
  engine: z.string(),
  op: z.string(),
  /** Every resolved parameter of the case, normalized (bytes, seconds, percent). */
  params: z.record(z.string(), z.unknown()),
  repetition: z.number().int().min(1),
  warmup: z.boolean(),
  /**
   * The host a compiled script's copy measured this row on, when it ran as one of several
   * (BENCHSPEC_HOST_COUNT): `benchspec merge` names the host's part by it.
   */
  host: z.string().optional(),
  ...measuredShape,
  /**
   * Object engines: the rates while every worker was busy (the last worker's first start to the first
   * worker's last end; `from` is seconds after the repetition's start), or why that window is not reported.
   */
  busyWindow: z
    .union([
      z.strictObject({
        from: z.number(),
        seconds: z.number(),
        bytes: z.number(),
        throughput: z.number(),
        iops: z.number(),
      }),
      z.strictObject({ reason: z.string() }),
    ])
    .optional(),
  latency: latency.optional(),
  histograms: histograms.optional(),
  /**
   * A compiled script's latencies, which bash cannot encode as `histograms`: nanoseconds → count (fio's
   * json+ bins; curl's transfer times cut to their HdrHistogram bucket). `merge` pools them as histograms.
   */
  latencyBins: z.record(z.string().regex(/^\d+$/), z.number().nonnegative()).optional(),
  jobs: z.array(jobResult).optional(),
  /** Time to first byte of object reads (GET, cat). */
  ttfb: latency.optional(),
  /**
   * Open loop (`rate`): `latency` is each operation's response time, from the instant it was due; this is
   * its service time, from the instant it started (the two differ by how late it started).
   */
  serviceTime: latency.optional(),
  /** Open loop (`rate`): the rate asked and kept (rows/schedule.ts). */
  schedule: z
    .strictObject({
      rate: z.number(),
      scheduled: z.number(),
      achieved: z.number(),
      late: z.strictObject({ p50: z.number(), p99: z.number(), max: z.number() }),
    })
    .optional(),
  /** A mixed workload, per operation (GetObject, PutObject, …): the share each one had and its latency. */
  byOp: z.record(z.string(), share).optional(),
  /**
   * Sizes drawn from a distribution, per size class (rows/sizes.ts), keyed by the class's size in bytes: a
   * bucket's own size, else the power of two the class ends at. The latency is the row's kind (response
   * time in an open loop).
   */
  bySize: z.record(z.string().regex(/^\d+$/), share).optional(),
  /** What the client itself cost: a busy event loop (> 0.9) means benchspec, not the storage, was the limit. */
  client: z
    .object({
      cpuSeconds: z.number(),
      cpuPerGiB: z.number(),
      /** Of the busiest thread. */
      eventLoopUtilization: z.number(),
      /** Threads that ran operations. */
      threads: z.number().int().optional(),
    })
    .optional(),
  /**
   * Autotune: every round in the order run (the tuned parameter's value and its numbers) and the value
   * chosen; by the bound rule, the bound and whether each round met it.
   */
  autotune: z
    .object({
      param: z.string(),
      rounds: z.array(
        z.object({
          value: z.number(),
          throughput: z.number(),
          iops: z.number(),
          bytes: z.number(),
          seconds: z.number(),
          /** The step's latencies (absent in rows of older runs). */
          latency: latency.optional(),
          /** By the bound rule: it succeeded, its figure was within the bound and its client kept the schedule. */
          met: z.boolean().optional(),
        }),
      ),
      chosen: z.number(),
      /** The bound rule's latency bound (seconds); absent for the gain rule. */
      bound: z.object({ metric: z.enum(LATENCY_METRICS), atMost: z.number() }).optional(),
    })
    .optional(),
  /** fio steady-state detection: whether the criterion was met before the time limit. */
  steady: z.object({ criterion: z.string(), attained: z.boolean() }).optional(),
  /** What the client host did meanwhile (telemetry/): CPU, interfaces, devices, benchspec's processes. */
  telemetry: TelemetrySummarySchema.optional(),
  /** A case run on several hosts at once: each host's own numbers (the row's are all hosts' together). */
  hosts: z.array(hostResult).optional(),
  /** A case run on several targets at once (`together`): each target's own numbers (the row's are their sums). */
  targets: z.array(targetResult).optional(),
  /** A case run on several hosts (or targets) at once: seconds from the earliest one's start to the latest one's. */
  startSpread: z.number().optional(),
});

export type ResultRow = z.infer<typeof ResultRowSchema>;

/** The fields that name a row's case: every row of a case has the same values in them. */
export const CASE_IDENTITY = [
  "source",
  "spec",
  "specHash",
  "case",
  "workload",
  "target",
  "engine",
  "op",
  "params",
] as const satisfies readonly (keyof ResultRow)[];
export type CaseIdentityField = (typeof CASE_IDENTITY)[number];

/** The first thing wrong with a value checked against a row schema: "field: what is wrong". */
export const firstIssue = (error: z.ZodError) => {
  const issue = error.issues[0]!;
  return `${issue.path.join(".") || "row"}: ${issue.message}`;
};

/** One point of a throughput/IOPS time series (timeseries.ndjson). */
export const TimeseriesRowSchema = z.object({
  case: z.string(),
  repetition: z.number().int(),
  /** Written by `run` (absent in rows from older runs and imports: readers then tell warm-ups by time). */
  warmup: z.boolean().optional(),
  /** Seconds since the start of the repetition. */
  t: z.number(),
  /**
   * A case run on several hosts: this host's own point (points without `host` are all hosts' together;
   * t counts from the earliest host's start).
   */
  host: z.string().optional(),
  /** A case run on several targets at once: this target's own point (as `host` for hosts). */
  target: z.string().optional(),
  throughput: z.number(),
  iops: z.number(),
});
export type TimeseriesRow = z.infer<typeof TimeseriesRowSchema>;

/**
 * What a measured repetition yields: the row's figures, before the runner adds the case's identity. Also
 * what a worker sends its coordinator, parsed with this schema there (hosts/protocol.ts).
 */
export const MeasurementSchema = ResultRowSchema.pick({
  ok: true,
  error: true,
  start: true,
  end: true,
  bytes: true,
  ops: true,
  seconds: true,
  throughput: true,
  iops: true,
  busyWindow: true,
  latency: true,
  jobs: true,
  steady: true,
  ttfb: true,
  serviceTime: true,
  schedule: true,
  byOp: true,
  bySize: true,
  client: true,
  autotune: true,
  histograms: true,
  hosts: true,
  targets: true,
  startSpread: true,
  telemetry: true,
}).extend({
  timeseries: z.array(TimeseriesRowSchema.omit({ case: true, repetition: true, warmup: true })).optional(),
  /**
   * The host's telemetry samples over the repetition (telemetry.ndjson), whose figures are `telemetry`; in
   * a row of several hosts, every host's, each with its `host`.
   */
  samples: z.array(TelemetrySampleSchema.extend({ host: z.string().optional() })).optional(),
  /** What failed, for the runner; not part of the row (its `error` says it to people). */
  errorCode: z.enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]).optional(),
});
export type Measurement = z.output<typeof MeasurementSchema>;
