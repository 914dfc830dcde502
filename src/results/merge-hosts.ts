/**
 * One repetition of a case that ran on several hosts — or on several targets — at once, as one row: the
 * parts' bytes and operations over the common window (the earliest part's start to the latest part's end,
 * each part's start and end being those of its I/O), latency percentiles of all their operations from their
 * merged histograms and their exact mean, each part's own numbers kept beside (`hosts` or `targets`). Pure:
 * whatever gathers the parts' measurements (the run's coordinator, the runner of a `together` case, a merge
 * of stored rows) calls it. docs/language.md ("Rows of several hosts", "Several targets at once") defines
 * every field the same way.
 */
import type { Measurement } from "../engines/types.js";
import { decodeHistogram, encodeHistogram, latencyOfHistogram, mergeHistograms } from "../rows/histogram.js";
import { mergePartSeries } from "./merge-series.js";
import { maxOf, minOf } from "../rows/stats.js";
import type { Latency, ResultRow } from "../rows/row.js";

/** One host's measurement of the repetition; start and end are already on one clock. */
export interface HostMeasurement {
  host: string;
  measurement: Measurement;
}

/** One target's measurement of a repetition run on several targets at once. */
export interface TargetMeasurement {
  target: string;
  measurement: Measurement;
}

/** What the parts of a merged row are: the client hosts of a case, or the targets of a case. */
export type PartAxis = "host" | "target";

interface Part {
  name: string;
  measurement: Measurement;
}

type PartFigures = Omit<NonNullable<ResultRow["hosts"]>[number], "host">;

const GiB = 2 ** 30;

export const mergeHostMeasurements = (parts: readonly HostMeasurement[], sampleSeconds?: number) =>
  mergeParts(
    parts.map(({ host, measurement }) => ({ name: host, measurement })),
    "host",
    sampleSeconds,
  );

export const mergeTargetMeasurements = (parts: readonly TargetMeasurement[], sampleSeconds?: number) =>
  mergeParts(
    parts.map(({ target, measurement }) => ({ name: target, measurement })),
    "target",
    sampleSeconds,
  );

function mergeParts(parts: readonly Part[], by: PartAxis, sampleSeconds?: number): Measurement {
  if (parts.length === 0) throw new Error(`no ${by} measurements to merge`);
  const measurements = parts.map((p) => p.measurement);
  const starts = measurements.map((m) => Date.parse(m.start));
  const start = minOf(starts);
  const end = maxOf(measurements.map((m) => Date.parse(m.end)));
  const seconds = (end - start) / 1000;
  const bytes = sum(measurements.map((m) => m.bytes));
  const ops = sum(measurements.map((m) => m.ops));
  const failed = parts.filter((p) => !p.measurement.ok);
  const errorCode = failed.find((p) => p.measurement.errorCode)?.measurement.errorCode;
  const merged: Measurement = {
    ok: failed.length === 0,
    ...(failed.length > 0 && {
      error: failed.map((p) => `${p.name}: ${p.measurement.error ?? "failed"}`).join("; "),
    }),
    ...(errorCode && { errorCode }),
    start: new Date(start).toISOString(),
    end: new Date(end).toISOString(),
    bytes,
    ops,
    seconds,
    // What a reader checks with a calculator, as for one host: the sums over the common window.
    throughput: seconds > 0 ? bytes / seconds : 0,
    iops: seconds > 0 ? ops / seconds : 0,
    startSpread: (maxOf(starts) - start) / 1000,
    ...(by === "host"
      ? { hosts: parts.map((p) => ({ host: p.name, ...partFigures(p.measurement) })) }
      : { targets: parts.map((p) => ({ target: p.name, ...partFigures(p.measurement) })) }),
  };
  const latency = mergedLatency(
    measurements.map((m) => ({ latency: m.latency, histogram: m.histograms?.latency })),
  );
  const ttfb = mergedLatency(measurements.map((m) => ({ latency: m.ttfb, histogram: m.histograms?.ttfb })));
  const serviceTime = mergedLatency(
    measurements.map((m) => ({ latency: m.serviceTime, histogram: m.histograms?.serviceTime })),
  );
  if (latency) merged.latency = latency.latency;
  if (ttfb) merged.ttfb = ttfb.latency;
  if (serviceTime) merged.serviceTime = serviceTime.latency;
  if (latency || ttfb || serviceTime)
    merged.histograms = {
      ...(latency && { latency: latency.histogram }),
      ...(ttfb && { ttfb: ttfb.histogram }),
      ...(serviceTime && { serviceTime: serviceTime.histogram }),
    };
  const schedules = measurements.flatMap((m) => (m.schedule ? [m.schedule] : []));
  // Each host kept its share of the group's schedule: the rates add up; how late, the latest host's.
  if (schedules.length === measurements.length && schedules.length > 0)
    merged.schedule = {
      rate: sum(schedules.map((s) => s.rate)),
      scheduled: sum(schedules.map((s) => s.scheduled)),
      achieved: sum(schedules.map((s) => s.achieved)),
      late: {
        p50: maxOf(schedules.map((s) => s.late.p50)),
        p99: maxOf(schedules.map((s) => s.late.p99)),
        max: maxOf(schedules.map((s) => s.late.max)),
      },
    };
  const byOp = mergedParts(measurements.map((m) => m.byOp));
  if (byOp) merged.byOp = byOp;
  const bySize = mergedParts(measurements.map((m) => m.bySize));
  if (bySize) merged.bySize = bySize;
  const client = mergedClient(measurements);
  if (client) merged.client = client;
  const jobs = parts.flatMap(({ name, measurement }) =>
    (measurement.jobs ?? []).map((job) => ({ ...job, [by]: name })),
  );
  // Each part numbers its own processes from 0: renumbered in order, the part says whose each one is.
  if (jobs.length > 0) merged.jobs = jobs.map((job, i) => ({ ...job, job: i }));
  if (measurements.some((m) => m.steady)) {
    merged.steady = {
      criterion: measurements.find((m) => m.steady)!.steady!.criterion,
      attained: measurements.every((m) => m.steady?.attained === true),
    };
  }
  if (measurements.some((m) => m.busyWindow))
    merged.busyWindow = {
      reason: `each ${by}'s workers were busy over a window of their own: a row of several ${by}s has none`,
    };
  const series = parts.flatMap(({ name, measurement }, i) =>
    measurement.timeseries
      ? [{ name, offset: (starts[i]! - start) / 1000, points: measurement.timeseries }]
      : [],
  );
  if (series.length > 0) merged.timeseries = mergePartSeries(series, by, sampleSeconds);
  // Telemetry is each host's own (its CPU, its NIC): kept per host, never summed. Targets share one machine,
  // whose telemetry their runner samples once.
  const samples = parts.flatMap(({ name, measurement }) =>
    (measurement.samples ?? []).map((sample) => ({ ...sample, ...(by === "host" && { host: name }) })),
  );
  if (samples.length > 0) merged.samples = samples;
  return merged;
}

function partFigures(m: Measurement): PartFigures {
  return {
    ok: m.ok,
    ...(m.error !== undefined && { error: m.error }),
    start: m.start,
    end: m.end,
    bytes: m.bytes,
    ops: m.ops,
    seconds: m.seconds,
    throughput: m.throughput,
    iops: m.iops,
    ...(m.latency && { latency: m.latency }),
    ...(m.histograms && { histograms: m.histograms }),
    ...(m.telemetry && { telemetry: m.telemetry }),
  };
}

/**
 * Every host's latencies together: the percentiles from their merged histograms, the mean exact — each
 * host's own mean weighted by the operations it timed (its histogram's count: its ops), which is the mean of
 * all their operations. Undefined when no host timed any, or when one timed some without its histogram (its
 * samples cannot be pooled, and a guess is no percentile).
 */
function mergedLatency(
  hosts: readonly { latency: Latency | undefined; histogram: string | undefined }[],
): { latency: Latency; histogram: string } | undefined {
  const timed = hosts.filter((h) => h.latency !== undefined || h.histogram !== undefined);
  if (timed.length === 0 || timed.some((h) => h.histogram === undefined)) return undefined;
  const histogram = mergeHistograms(timed.map((h) => h.histogram!));
  const latency = latencyOfHistogram(histogram);
  if (!latency) return undefined;
  // A host without its own mean (a stored row that lacks it) leaves the histogram's (within 0.1%).
  if (timed.every((h) => h.latency?.mean !== undefined)) {
    const timedOps = timed.map((h) => decodeHistogram(h.histogram!).totalCount);
    latency.mean = sum(timed.map((h, i) => h.latency!.mean! * timedOps[i]!)) / histogram.totalCount;
  }
  return { latency, histogram: encodeHistogram(histogram) };
}

/** Per operation (or size class): counts, bytes and errors summed; latency where every host kept its histogram. */
function mergedParts(parts: readonly Measurement["byOp"][]): Measurement["byOp"] {
  const tables = parts.flatMap((table) => (table ? [table] : []));
  if (tables.length === 0) return undefined;
  const names = [...new Set(tables.flatMap((table) => Object.keys(table)))].sort();
  return Object.fromEntries(
    names.map((name) => {
      const entries = tables.flatMap((table) => (table[name] ? [table[name]] : []));
      const latency = mergedLatency(
        entries.map((e) => ({ latency: e.latency, histogram: e.histograms?.latency })),
      );
      return [
        name,
        {
          ops: sum(entries.map((e) => e.ops)),
          bytes: sum(entries.map((e) => e.bytes)),
          errors: sum(entries.map((e) => e.errors)),
          ...(latency && { latency: latency.latency, histograms: { latency: latency.histogram } }),
        },
      ];
    }),
  );
}

/** What the clients cost together: CPU summed (per GiB of their bytes), the busiest event loop. */
function mergedClient(measurements: readonly Measurement[]): Measurement["client"] {
  const costed = measurements.filter((m) => m.client);
  if (costed.length === 0) return undefined;
  const cpuSeconds = sum(costed.map((m) => m.client!.cpuSeconds));
  const bytes = sum(costed.map((m) => m.bytes));
  const threads = costed.flatMap((m) => (m.client!.threads === undefined ? [] : [m.client!.threads]));
  return {
    cpuSeconds,
    cpuPerGiB: bytes > 0 ? cpuSeconds / (bytes / GiB) : 0,
    eventLoopUtilization: maxOf(costed.map((m) => m.client!.eventLoopUtilization)),
    ...(threads.length > 0 && { threads: sum(threads) }),
  };
}

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);
