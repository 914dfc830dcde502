/**
 * A repetition's numbers from its operation records: bytes and operations over its time, latency and
 * time-to-first-byte percentiles (and their histograms), the busy window, the per-operation breakdown of a
 * mixed load, the time series, and what the client cost — docs/language.md's definitions, computed here.
 */
import type { ErrorCode } from "../../platform/errors.js";
import { encodeSeconds } from "../../rows/histogram.js";
import { maxOf, minOf } from "../../rows/stats.js";
import type { Measurement } from "../types.js";
import type { RowSchedule } from "../../rows/schedule.js";

export interface OpRecord {
  worker: number;
  /** performance.now() milliseconds */
  start: number;
  end: number;
  /** Open loop: when it was due; it started then or, with every worker busy, later. */
  due?: number;
  firstByte?: number;
  bytes: number;
  /**
   * Bytes moved so far, as [time, cumulative bytes] pairs at least PROGRESS_STEP_MS apart, for operations
   * long enough to have them: the time series follows the bytes, not an even spread over the operation.
   */
  progress?: number[];
  /** The operation's name (GetObject, PutObject, …), for the per-operation breakdown of a mixed load. */
  kind?: string;
  /** A drawn size's class (rows/sizes.ts), for the per-size breakdown. */
  sizeClass?: number;
  error?: string;
  /** What failed, for the runner (the target stopped answering?); `error` says it to people. */
  errorCode?: ErrorCode;
}

export interface LoadResult {
  records: OpRecord[];
  startedAt: number;
  /** Wall-clock epoch ms at the start, for ISO timestamps. */
  epochStart: number;
  cpuSeconds: number;
  elu: number;
  /** Threads that ran workers. */
  threads: number;
}

/** The repetition's numbers from its operation records. */
export function measure(
  result: LoadResult,
  sample?: number,
  rate?: number,
): Measurement & { client: ClientCost } {
  const { records, startedAt, epochStart } = result;
  const schedule = rate !== undefined ? scheduleOf(records, rate) : undefined;
  const ok = records.filter((r) => !r.error);
  const errors = records.filter((r) => r.error);
  const first = minOf(
    records.map((r) => r.start),
    startedAt,
  );
  const last = maxOf(
    records.map((r) => r.end),
    startedAt,
  );
  const wall = (last - first) / 1000;
  const bytes = ok.reduce((sum, r) => sum + r.bytes, 0);
  // Open loop: latency is the response time, from when the operation was due (coordinated omission
  // would hide a stall's queue otherwise); the service time, from its start, is kept beside it.
  const latencyOf = schedule ? (r: OpRecord) => (r.end - r.due!) / 1000 : serviceTimeOf;
  const serviceTimes = ok.map(serviceTimeOf);
  const latencies = schedule ? ok.map(latencyOf) : serviceTimes;
  const ttfb = ok.filter((r) => r.firstByte !== undefined).map((r) => (r.firstByte! - r.start) / 1000);
  const measurement: Measurement & { client: ClientCost } = {
    ok: errors.length === 0 && ok.length > 0,
    ...(errors.length > 0 && {
      error: `${errors.length} of ${records.length} operations failed; first: ${errors[0]!.error}`,
      ...(errors[0]!.errorCode && { errorCode: errors[0]!.errorCode }),
    }),
    ...(records.length === 0 && { error: "no operation ran" }),
    start: new Date(epochStart + (first - startedAt)).toISOString(),
    end: new Date(epochStart + (last - startedAt)).toISOString(),
    bytes,
    ops: ok.length,
    seconds: wall,
    // What a reader checks with a calculator: the bytes and operations over the repetition's time.
    throughput: wall > 0 ? bytes / wall : 0,
    iops: wall > 0 ? ok.length / wall : 0,
    busyWindow: busyWindowRates(records, ok, first, last),
    ...(latencies.length > 0 && { latency: percentiles(latencies) }),
    ...(ttfb.length > 0 && { ttfb: percentiles(ttfb) }),
    ...(schedule && serviceTimes.length > 0 && { serviceTime: percentiles(serviceTimes) }),
    ...(schedule && { schedule }),
    // The same samples again, as histograms: rows of several hosts merge by them (percentiles do not add up).
    ...(latencies.length > 0 && {
      histograms: {
        latency: encodeSeconds(latencies),
        ...(ttfb.length > 0 && { ttfb: encodeSeconds(ttfb) }),
        ...(schedule && { serviceTime: encodeSeconds(serviceTimes) }),
      },
    }),
    client: {
      cpuSeconds: result.cpuSeconds,
      cpuPerGiB: bytes > 0 ? result.cpuSeconds / (bytes / 2 ** 30) : 0,
      eventLoopUtilization: result.elu,
      threads: result.threads,
    },
  };
  // A mixed load's kinds of operation (when there are several), and drawn sizes' classes.
  const kinds = new Set(records.map((r) => r.kind ?? ""));
  if (kinds.size > 1) measurement.byOp = breakdown(records, (r) => r.kind ?? "", latencyOf);
  if (records.some((r) => r.sizeClass !== undefined))
    measurement.bySize = breakdown(records, (r) => r.sizeClass?.toString(), latencyOf);
  if (sample) measurement.timeseries = series(ok, first, last, sample * 1000);
  return measurement;
}

/** How an open loop kept its schedule: the rate its operations started at, and how late they started. */
function scheduleOf(records: readonly OpRecord[], rate: number): RowSchedule {
  const rateOver = (instants: Float64Array) => {
    const span = instants.length > 1 ? (instants[instants.length - 1]! - instants[0]!) / 1000 : 0;
    return span > 0 ? (instants.length - 1) / span : 0;
  };
  const late = records.map((r) => (r.start - r.due!) / 1000);
  const { p50, p99 } = late.length > 0 ? percentiles(late) : { p50: 0, p99: 0 };
  const dues = Float64Array.from(records, (r) => r.due!).sort();
  const starts = Float64Array.from(records, (r) => r.start).sort();
  const scheduled = rateOver(dues);
  const slope = paceOf(dues, starts);
  return {
    rate,
    scheduled,
    // A few operations started late at the first or last instant (a busy machine's timer) would move a
    // rate over the first and last start by as much as their delay; the pace over all of them does not.
    achieved: slope > 0 ? scheduled / slope : rateOver(starts),
    late: { p50, p99, max: maxOf(late, 0) },
  };
}

/**
 * The pace the starts kept against the schedule: the least-squares slope of the k-th start on the k-th due
 * instant (1: the schedule's pace, however late each operation started; 2: half its rate). 0 when there is
 * no slope to fit (fewer than two operations, or all due at once).
 */
export function paceOf(dues: Float64Array, starts: Float64Array): number {
  const n = dues.length;
  if (n < 2) return 0;
  let dueMean = 0;
  let startMean = 0;
  for (let i = 0; i < n; i++) {
    dueMean += dues[i]! / n;
    startMean += starts[i]! / n;
  }
  let covariance = 0;
  let variance = 0;
  for (let i = 0; i < n; i++) {
    covariance += (dues[i]! - dueMean) * (starts[i]! - startMean);
    variance += (dues[i]! - dueMean) ** 2;
  }
  return variance > 0 ? covariance / variance : 0;
}

const serviceTimeOf = (r: OpRecord) => (r.end - r.start) / 1000;

/**
 * The operations in parts by a key (none: in no part): each part's count, bytes, errors and latency (the
 * row's kind of latency).
 */
function breakdown(
  records: readonly OpRecord[],
  keyOf: (r: OpRecord) => string | undefined,
  latencyOf: (r: OpRecord) => number,
): NonNullable<Measurement["byOp"]> {
  const parts = new Map<string, OpRecord[]>();
  for (const r of records) {
    const key = keyOf(r);
    if (key === undefined) continue;
    const part = parts.get(key);
    if (part) part.push(r);
    else parts.set(key, [r]);
  }
  return Object.fromEntries(
    [...parts.keys()].sort().map((key) => {
      const mine = parts.get(key)!;
      const ok = mine.filter((r) => !r.error);
      const latencies = ok.map(latencyOf);
      return [
        key,
        {
          ops: ok.length,
          bytes: ok.reduce((sum, r) => sum + r.bytes, 0),
          errors: mine.length - ok.length,
          ...(ok.length > 0 && {
            latency: percentiles(latencies),
            histograms: { latency: encodeSeconds(latencies) },
          }),
        },
      ];
    }),
  );
}

export interface ClientCost {
  cpuSeconds: number;
  cpuPerGiB: number;
  eventLoopUtilization: number;
  threads: number;
}

/** From the moment the last worker started its first operation to the moment the first worker finished its last. */
function busyWindow(
  records: readonly OpRecord[],
): { start: number; end: number; workers: number } | undefined {
  const byWorker = new Map<number, { first: number; last: number }>();
  for (const r of records) {
    const span = byWorker.get(r.worker) ?? { first: Infinity, last: -Infinity };
    span.first = Math.min(span.first, r.start);
    span.last = Math.max(span.last, r.end);
    byWorker.set(r.worker, span);
  }
  const spans = [...byWorker.values()];
  if (spans.length === 0) return undefined;
  const start = maxOf(spans.map((s) => s.first));
  const end = minOf(spans.map((s) => s.last));
  return end > start ? { start, end, workers: spans.length } : undefined;
}

/**
 * A window shorter than this share of the repetition says little about a steady rate: with about one
 * object per worker it is the sliver between the last start and the first end.
 */
const BUSY_WINDOW_MIN_SHARE = 0.5;

/** The rates while every worker was busy, or why there is no such window worth reporting. */
function busyWindowRates(
  records: readonly OpRecord[],
  ok: readonly OpRecord[],
  first: number,
  last: number,
): NonNullable<Measurement["busyWindow"]> {
  const window = busyWindow(records);
  if (!window) return { reason: "the workers were never all busy at once" };
  const seconds = (window.end - window.start) / 1000;
  const wall = (last - first) / 1000;
  if (seconds < BUSY_WINDOW_MIN_SHARE * wall)
    return {
      reason: `all ${window.workers} workers were busy for ${seconds.toPrecision(3)} s of the repetition's ${wall.toPrecision(3)} s: too short for a steady rate`,
    };
  const bytes = ok.reduce((sum, r) => sum + bytesWithin(r, window.start, window.end), 0);
  const ops = ok.reduce((sum, r) => sum + overlap(r, window.start, window.end), 0);
  return {
    from: (window.start - first) / 1000,
    seconds,
    bytes,
    throughput: bytes / seconds,
    iops: ops / seconds,
  };
}

/** The share of an operation inside [start, end], assuming it moved its bytes at an even rate. */
function overlap(r: OpRecord, start: number, end: number): number {
  const length = r.end - r.start;
  if (length <= 0) return r.start >= start && r.start <= end ? 1 : 0;
  return Math.max(0, Math.min(r.end, end) - Math.max(r.start, start)) / length;
}

/**
 * The bytes an operation moved inside [start, end]: from its progress checkpoints (linear between them),
 * or spread evenly over the operation when it has none (a short one).
 */
export function bytesWithin(r: OpRecord, start: number, end: number): number {
  if (!r.progress) return r.bytes * overlap(r, start, end);
  return movedBy(r, end) - movedBy(r, start);
}

/** Cumulative bytes at time t: the curve through (start, 0), the checkpoints, and (end, bytes). */
function movedBy(r: OpRecord, t: number): number {
  if (t <= r.start) return 0;
  if (t >= r.end) return r.bytes;
  const p = r.progress!;
  let t0 = r.start;
  let b0 = 0;
  for (let i = 0; i <= p.length; i += 2) {
    // Request framing (a multipart form's boundaries) can count a few bytes past the payload: capped.
    const t1 = i < p.length ? p[i]! : r.end;
    const b1 = i < p.length ? Math.min(p[i + 1]!, r.bytes) : r.bytes;
    if (t <= t1) return t1 > t0 ? b0 + ((b1 - b0) * (t - t0)) / (t1 - t0) : b1;
    t0 = t1;
    b0 = b1;
  }
  return r.bytes;
}

function series(records: readonly OpRecord[], first: number, last: number, step: number) {
  const points = [];
  for (let t = first; t < last; t += step) {
    const end = Math.min(t + step, last);
    const seconds = (end - t) / 1000;
    if (seconds <= 0) break;
    let bytes = 0;
    let ops = 0;
    for (const r of records) {
      bytes += bytesWithin(r, t, end);
      ops += overlap(r, t, end);
    }
    points.push({ t: (end - first) / 1000, throughput: bytes / seconds, iops: ops / seconds });
  }
  return points;
}

export function percentiles(values: readonly number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  return {
    mean: sorted.reduce((a, b) => a + b, 0) / sorted.length,
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    "p99.9": at(0.999),
  };
}
