/** How each parameter's normalized value is written back for people: in ids, tables and artifacts. */
import { createHash } from "node:crypto";
import type { ParamName, ParamValue } from "./schema.js";
import { formatDuration, formatSize } from "./units.js";
import { isSizeDistribution, type SizeDistribution } from "../rows/sizes.js";

type Format = "size" | "duration" | "percent" | "rate" | "plain";

const PARAM_FORMATS: Record<ParamName, Format> = {
  target: "plain",
  hosts: "plain",
  engine: "plain",
  op: "plain",
  size: "size",
  bs: "size",
  count: "plain",
  iodepth: "plain",
  jobs: "plain",
  parallel: "plain",
  concurrency: "plain",
  rate: "rate",
  arrivals: "plain",
  threads: "plain",
  objects: "plain",
  read: "percent",
  duration: "duration",
  ramp: "duration",
  warmup: "plain",
  repeat: "plain",
  direct: "plain",
  data: "plain",
  multipart: "plain",
  mix: "plain",
  sample: "duration",
  precondition: "plain",
  purge: "plain",
  idle: "duration",
  steady: "plain",
  autotune: "plain",
  ioengine: "plain",
  chunker: "plain",
  cidVersion: "plain",
  rawLeaves: "plain",
  pin: "plain",
};

export function formatParam(name: ParamName, value: ParamValue): string {
  if (PARAM_FORMATS[name] === "rate" && typeof value === "object" && value !== null) {
    const rate = value as { opsPerSecond: number } | { bytesPerSecond: number };
    return "opsPerSecond" in rate ? `${rate.opsPerSecond}/s` : `${formatSize(rate.bytesPerSecond)}/s`;
  }
  if (PARAM_FORMATS[name] === "size" && isSizeDistribution(value)) return formatDistribution(value);
  if (typeof value === "number") {
    const format = PARAM_FORMATS[name];
    if (format === "size") return formatSize(value);
    if (format === "duration") return formatDuration(value);
    if (format === "percent") return `${value}%`;
    return String(value);
  }
  if (typeof value === "object" && value !== null) return canonicalJson(value);
  return String(value);
}

/** A drawn size as people write it: "4KiB 70% · 1MiB 30%", "uniform 4KiB–1MiB", "lognormal 1MiB ×4 (4KiB–64MiB)". */
function formatDistribution(d: SizeDistribution): string {
  const seed = d.seed !== undefined ? `, seed ${d.seed}` : "";
  if ("uniform" in d) return `uniform ${formatSize(d.uniform.min)}–${formatSize(d.uniform.max)}${seed}`;
  if ("lognormal" in d) {
    const { median, spread, min, max } = d.lognormal;
    return `lognormal ${formatSize(median)} ×${spread} (${formatSize(min)}–${formatSize(max)})${seed}`;
  }
  return d.buckets.map((b) => `${formatSize(b.size)} ${b.percent}%`).join(" · ") + seed;
}

/** A short, file-name-safe form of a value for case ids. */
export function idFragment(name: ParamName, value: ParamValue): string {
  if (typeof value === "object" && value !== null && PARAM_FORMATS[name] !== "rate")
    return shortHash(canonicalJson(value));
  return formatParam(name, value)
    .replace(/%$/, "")
    .replace(/[^A-Za-z0-9._-]/g, "_");
}

/** JSON with sorted keys: the same value always gives the same bytes. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}

export function shortHash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 8);
}

export function sameValue(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}
