/**
 * Reading fio's json+ output: the measured job (named after the case id), read and write sides summed,
 * latency percentiles computed exactly from the merged completion-latency histograms (json+ bins), which
 * the row also keeps as an HDR histogram (rows of several hosts merge by it).
 */
import { z } from "zod";
import { encodeBins } from "../../rows/histogram.js";
import type { Measurement } from "../types.js";
import { maxOf } from "../../rows/stats.js";

const fioSide = z.looseObject({
  io_bytes: z.number(),
  bw_bytes: z.number(),
  iops: z.number(),
  runtime: z.number(),
  total_ios: z.number(),
  clat_ns: z
    .looseObject({
      mean: z.number(),
      N: z.number().optional(),
      bins: z.record(z.string(), z.number()).optional(),
      percentile: z.record(z.string(), z.number().nullable()).optional(),
    })
    .optional(),
});
type FioSide = z.output<typeof fioSide>;

const fioJob = z.looseObject({
  jobname: z.string(),
  error: z.number(),
  read: fioSide,
  write: fioSide,
  trim: fioSide.optional(),
  steadystate: z.looseObject({ ss: z.string(), attained: z.number() }).optional(),
});
type FioJob = z.output<typeof fioJob>;

/** The parts of fio's json+ output benchspec reads, checked: anything else fio writes is kept as it is. */
const FioOutputSchema = z.looseObject({
  jobs: z.array(fioJob).optional(),
  client_stats: z.array(fioJob.extend({ hostname: z.string(), port: z.number() })).optional(),
  timestamp_ms: z.number().optional(),
});
export type FioOutput = { jobs: FioJob[]; timestamp_ms?: number };

/**
 * The output of `fio --client=… --client=…` split by server (`host,port` → that server's jobs, as one fio
 * run's output), ready for measurementFromFio. fio's own "All clients" entry is left out: fio 3.33 gives it
 * no percentiles, and the hosts' rows merge by their bins.
 */
export function outputsByServer(text: string): Map<string, FioOutput> {
  const output = parseFioDocument(text);
  const servers = new Map<string, FioOutput>();
  for (const { hostname, port, ...job } of output.client_stats ?? []) {
    if (job.jobname === "All clients") continue;
    const key = `${hostname},${port}`;
    const jobs = servers.get(key)?.jobs ?? [];
    servers.set(key, { jobs: [...jobs, job] });
  }
  return servers;
}

export function parseFioJson(text: string): FioOutput {
  const { jobs, ...rest } = parseFioDocument(text);
  if (jobs === undefined) throw new Error('no "jobs"');
  return { ...rest, jobs };
}

/** fio's output as JSON, its parts benchspec reads checked ("jobs.0.write: expected object, received null"). */
function parseFioDocument(text: string): z.output<typeof FioOutputSchema> {
  // fio may print warnings before the JSON document.
  const start = text.indexOf("{");
  if (start < 0) throw new Error("fio printed no JSON");
  // Steady-state data can hold C's nan/inf, which JSON has no word for.
  const json = text.slice(start).replace(/(:\s*)-?(nan|inf)\b/gi, "$1null");
  const parsed = FioOutputSchema.safeParse(JSON.parse(json));
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new Error(`${issue.path.join(".")}: ${issue.message}`);
}

/**
 * A repetition's numbers from fio's output; `endMs` defaults to `startMs` plus fio's runtime (the interval
 * of the I/O when `startMs` is the instant it began).
 */
export function measurementFromFio(
  output: FioOutput,
  jobName: string,
  startMs: number,
  endMs?: number,
): Measurement {
  const job = output.jobs.find((j) => j.jobname === jobName);
  if (!job) throw new Error(`fio output has no job named ${jobName}`);
  const sides = [job.read, job.write].filter((side) => side.total_ios > 0 || side.io_bytes > 0);
  const bytes = sum(sides.map((s) => s.io_bytes));
  const ops = sum(sides.map((s) => s.total_ios));
  const seconds =
    maxOf(
      sides.map((s) => s.runtime),
      0,
    ) / 1000;
  const measurement: Measurement = {
    ok: job.error === 0,
    ...(job.error !== 0 && { error: `fio job error ${job.error}` }),
    start: new Date(startMs).toISOString(),
    end: new Date(endMs ?? startMs + seconds * 1000).toISOString(),
    bytes,
    ops,
    seconds,
    // Not fio's per-side bw_bytes/iops summed: the read and write sides have their own runtimes, and
    // their sum is not the bytes over the repetition's time a reader checks.
    throughput: seconds > 0 ? bytes / seconds : 0,
    iops: seconds > 0 ? ops / seconds : 0,
  };
  const bins = clatBins(sides);
  const latency = latencyOf(sides, bins);
  if (latency) measurement.latency = latency;
  if (bins.size > 0) measurement.histograms = { latency: encodeBins(bins) };
  if (job.steadystate)
    measurement.steady = { criterion: job.steadystate.ss, attained: job.steadystate.attained === 1 };
  return measurement;
}

/** The sides whose completion latencies count: those that did I/O and reported them. */
const timedSides = (sides: readonly FioSide[]) => sides.filter((s) => s.clat_ns && s.total_ios > 0);

/** The json+ completion-latency bins of the sides, merged: nanoseconds → count. */
function clatBins(sides: readonly FioSide[]): Map<number, number> {
  const bins = new Map<number, number>();
  for (const side of timedSides(sides)) {
    for (const [ns, count] of Object.entries(side.clat_ns!.bins ?? {}))
      bins.set(Number(ns), (bins.get(Number(ns)) ?? 0) + count);
  }
  return bins;
}

function latencyOf(sides: FioSide[], bins: ReadonlyMap<number, number>): Measurement["latency"] {
  const weighted = timedSides(sides);
  if (weighted.length === 0) return undefined;
  const total = sum(weighted.map((s) => s.total_ios));
  const mean = sum(weighted.map((s) => s.clat_ns!.mean * s.total_ios)) / total / 1e9;
  return bins.size === 0 ? { mean } : { mean, ...binPercentiles(bins) };
}

/**
 * The percentiles of fio's bins (nanoseconds → count), in seconds: each the first bin, in order, where the
 * count reaches that share of all (the compiled script's fio.sh takes them the same way).
 */
export function binPercentiles(bins: ReadonlyMap<number, number>) {
  const sorted = [...bins.entries()].sort((a, b) => a[0] - b[0]);
  const count = sum(sorted.map(([, n]) => n));
  const at = (fraction: number) => {
    let seen = 0;
    for (const [ns, n] of sorted) {
      seen += n;
      if (seen >= fraction * count) return ns / 1e9;
    }
    return sorted[sorted.length - 1]![0] / 1e9;
  };
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), "p99.9": at(0.999) };
}

/**
 * fio's averaged logs (`log_avg_msec`): "msec, value, direction, bs, offset[, prio]" per line, one file per
 * job; values of the same instant are summed across jobs and directions.
 */
export function seriesFromLogs(
  logs: { kind: "bw" | "iops"; text: string }[],
  intervalMs = 1,
): NonNullable<Measurement["timeseries"]> {
  const points = new Map<number, { throughput: number; iops: number }>();
  for (const { kind, text } of logs) {
    for (const line of text.split("\n")) {
      const [msText, valueText] = line.split(",");
      if (!msText || valueText === undefined) continue;
      // fio stamps each log's averaging window independently, a millisecond or so apart: one instant per window.
      const ms = Math.round(Number(msText) / intervalMs) * intervalMs;
      const value = Number(valueText);
      if (!Number.isFinite(ms) || !Number.isFinite(value)) continue;
      const point = points.get(ms) ?? { throughput: 0, iops: 0 };
      // bw logs are in KiB/s.
      if (kind === "bw") point.throughput += value * 1024;
      else point.iops += value;
      points.set(ms, point);
    }
  }
  return [...points.entries()].sort((a, b) => a[0] - b[0]).map(([ms, point]) => ({ t: ms / 1000, ...point }));
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
