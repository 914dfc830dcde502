/**
 * Import of fio's own JSON output (`fio --output-format=json` or `json+`), so people who run fio by hand
 * or from another runner get the same report. Each fio job becomes one result row: its case and workload
 * are the job name, its parameters come from the job's (and the global) options. Several files with the
 * same job names are repetitions of each other. Jobs that fio printed once per thread (numjobs without
 * group_reporting) are summed first; steady-state data becomes a short time series and a window.
 *
 * The measured numbers are read by the same code as `benchspec run` (engines/fio/results.ts).
 */
import { createHash } from "node:crypto";
import type { FioOutput } from "../engines/fio/results.js";
import { measurementFromFio, parseFioJson } from "../engines/fio/results.js";
import type { ResultRow, TimeseriesRow } from "../rows/row.js";
import { maxOf } from "../rows/stats.js";

/** A result row that came from a foreign tool's output: the row format, with its own `source`. */
export type ImportedRow = ResultRow & { source: "fio-import" };

export interface SteadyWindow {
  case: string;
  repetition: number;
  /** Seconds since the start of the repetition (the window ends when fio stopped the job). */
  start: number;
  end: number;
  attained: boolean;
  criterion: string;
}

export interface FioImport {
  rows: ImportedRow[];
  timeseries: TimeseriesRow[];
  steady: SteadyWindow[];
}

type FioJob = FioOutput["jobs"][number];
type FioSide = FioJob["read"];
type FioOptions = Record<string, string>;
interface FioJobFull extends FioJob {
  "job options"?: FioOptions;
  job_runtime?: number;
  steadystate?: FioJob["steadystate"] & { duration?: number; data?: { iops?: number[]; bw?: number[] } };
}
interface FioDocument extends FioOutput {
  "fio version"?: string;
  "global options"?: FioOptions;
  time?: string;
}

/** Whether a text looks like fio's JSON output (fio may print warnings before it). */
export function isFioJson(head: string): boolean {
  return /"fio version"\s*:/.test(head) || /"jobs"\s*:\s*\[\s*\{\s*"jobname"/.test(head);
}

/**
 * Imports one or more fio JSON outputs; `files` in repetition order. `name` is the imported "spec" name.
 */
export function importFioOutputs(
  files: readonly { name: string; text: string }[],
  specName = "fio-import",
): FioImport {
  const out: FioImport = { rows: [], timeseries: [], steady: [] };
  const hash = createHash("sha256");
  for (const file of files) hash.update(file.text);
  const specHash = hash.digest("hex");
  const repetitions = new Map<string, number>();
  for (const file of files) {
    let doc: FioDocument;
    try {
      doc = parseFioJson(file.text) as FioDocument;
    } catch (error) {
      throw new Error(`${file.name}: not fio JSON output (${(error as Error).message})`);
    }
    if (!Array.isArray(doc.jobs)) throw new Error(`${file.name}: not fio JSON output (no "jobs")`);
    const endMs = doc.timestamp_ms ?? (doc.time ? Date.parse(doc.time) : Date.now());
    for (const job of mergeThreads(doc.jobs as FioJobFull[])) {
      const id = job.jobname;
      const repetition = (repetitions.get(id) ?? 0) + 1;
      repetitions.set(id, repetition);
      const runtimeMs = job.job_runtime ?? Math.max(job.read?.runtime ?? 0, job.write?.runtime ?? 0);
      const measurement = measurementFromFio({ jobs: [job] }, id, endMs - runtimeMs, endMs);
      const options: FioOptions = { ...(doc["global options"] ?? {}), ...(job["job options"] ?? {}) };
      const params = paramsFromOptions(options);
      const op = typeof params.op === "string" ? params.op : "rw";
      out.rows.push({
        v: 1,
        source: "fio-import",
        spec: specName,
        specHash,
        case: id,
        workload: id,
        target: options.filename ?? options.directory ?? "fio",
        engine: "fio",
        op,
        params: { ...params, engine: "fio", target: options.filename ?? options.directory ?? "fio" },
        repetition,
        warmup: false,
        ...measurement,
      });
      const ss = job.steadystate;
      if (ss && typeof ss.duration === "number" && ss.duration > 0) {
        const end = runtimeMs / 1000;
        const start = Math.max(0, end - ss.duration);
        out.steady.push({ case: id, repetition, start, end, attained: ss.attained === 1, criterion: ss.ss });
        const iops = ss.data?.iops ?? [];
        const bw = ss.data?.bw ?? [];
        const samples = Math.max(iops.length, bw.length);
        for (let i = 0; i < samples; i += 1) {
          out.timeseries.push({
            case: id,
            repetition,
            t: start + ((i + 1) * (end - start)) / samples,
            throughput: bw[i] ?? 0,
            iops: iops[i] ?? 0,
          });
        }
      }
    }
  }
  return out;
}

/** fio prints one entry per thread when numjobs > 1 without group_reporting: sum them per job name. */
function mergeThreads(jobs: readonly FioJobFull[]): FioJobFull[] {
  const byName = new Map<string, FioJobFull[]>();
  for (const job of jobs) byName.set(job.jobname, [...(byName.get(job.jobname) ?? []), job]);
  return [...byName.values()].map((group) =>
    group.length === 1
      ? group[0]!
      : {
          ...group[0]!,
          error: group.find((j) => j.error !== 0)?.error ?? 0,
          read: mergeSides(group.map((j) => j.read)),
          write: mergeSides(group.map((j) => j.write)),
          job_runtime: maxOf(group.map((j) => j.job_runtime ?? 0)),
        },
  );
}

function mergeSides(sides: FioSide[]): FioSide {
  const present = sides.filter(Boolean);
  const total = present.reduce((n, s) => n + s.total_ios, 0);
  const bins: Record<string, number> = {};
  let withBins = false;
  for (const side of present) {
    for (const [ns, count] of Object.entries(side.clat_ns?.bins ?? {})) {
      bins[ns] = (bins[ns] ?? 0) + count;
      withBins = true;
    }
  }
  const merged: FioSide = {
    io_bytes: present.reduce((n, s) => n + s.io_bytes, 0),
    bw_bytes: present.reduce((n, s) => n + s.bw_bytes, 0),
    iops: present.reduce((n, s) => n + s.iops, 0),
    runtime: maxOf(
      present.map((s) => s.runtime),
      0,
    ),
    total_ios: total,
  };
  if (total > 0 && present.some((s) => s.clat_ns)) {
    merged.clat_ns = {
      mean: present.reduce((n, s) => n + (s.clat_ns?.mean ?? 0) * s.total_ios, 0) / total,
      ...(withBins && { bins }),
    };
  }
  return merged;
}

const RW_OPS: Record<string, string> = {
  read: "read",
  write: "write",
  randread: "randread",
  randwrite: "randwrite",
  rw: "readwrite",
  readwrite: "readwrite",
  randrw: "randrw",
  trim: "trim",
  randtrim: "randtrim",
};

/** fio's options (strings, as fio echoes them) as benchspec parameters, normalized (bytes, seconds, %). */
export function paramsFromOptions(options: FioOptions): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  if (options.rw) params.op = RW_OPS[options.rw.split(":")[0]!] ?? options.rw;
  const bs = options.bs ?? options.blocksize;
  const bsBytes = bs !== undefined ? fioSize(bs.split(/[,:-]/)[0]!) : undefined;
  if (bsBytes !== undefined) params.bs = bsBytes;
  const size = options.size !== undefined ? fioSize(options.size) : undefined;
  if (size !== undefined) params.size = size;
  for (const [key, name] of [
    ["iodepth", "iodepth"],
    ["numjobs", "jobs"],
    ["rwmixread", "read"],
  ] as const) {
    const value = options[key] !== undefined ? Number(options[key]) : NaN;
    if (Number.isFinite(value)) params[name] = value;
  }
  if (
    options.rwmixwrite !== undefined &&
    params.read === undefined &&
    Number.isFinite(Number(options.rwmixwrite))
  ) {
    params.read = 100 - Number(options.rwmixwrite);
  }
  const runtime = options.runtime !== undefined ? fioDuration(options.runtime) : undefined;
  if (runtime !== undefined) params.duration = runtime;
  if (options.ioengine) params.ioengine = options.ioengine;
  if (options.direct !== undefined) params.direct = options.direct === "1" || options.direct === "true";
  return params;
}

const SIZE_SUFFIX: Record<string, number> = {
  "": 1,
  k: 2 ** 10,
  m: 2 ** 20,
  g: 2 ** 30,
  t: 2 ** 40,
  p: 2 ** 50,
};

/** fio sizes: "4k", "4KiB", "1m", "512" (bytes); kb_base 1024 as fio's default. */
export function fioSize(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([kmgtp]?)(?:i?b)?\s*$/i.exec(text);
  if (!match) return undefined;
  return Math.round(Number(match[1]) * SIZE_SUFFIX[match[2]!.toLowerCase()]!);
}

const DURATION_SUFFIX: Record<string, number> = { "": 1, us: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600, d: 86400 };

/** fio times: a bare number is seconds; "500ms", "30s", "5m", "1h". */
export function fioDuration(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(us|ms|s|m|h|d)?\s*$/i.exec(text);
  if (!match) return undefined;
  return Number(match[1]) * DURATION_SUFFIX[(match[2] ?? "").toLowerCase()]!;
}
