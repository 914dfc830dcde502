/**
 * The shape of the data a report draws: per workload, every case of every run (an "entry"), and the
 * dimensions that vary among them. Chart layouts are chosen from these dimensions: the swept parameter on
 * x, targets/ops/runs as colour, the rest as facets.
 */
import { compareParamValues, formatParam } from "./format.js";
import type { CaseFigures, RunData } from "./model.js";

export interface Entry {
  run: RunData;
  c: CaseFigures;
}

export interface WorkloadView {
  name: string;
  description?: string;
  entries: Entry[];
  /** Dimensions whose values differ between entries, redundant ones removed, in priority order. */
  dims: string[];
  multiRun: boolean;
}

/** Parameters that make a good x axis, most telling first. */
export const X_PRIORITY = [
  "size",
  "bs",
  "concurrency",
  "parallel",
  "jobs",
  "iodepth",
  "objects",
  "count",
  "read",
  "duration",
];
/** Parameters that vary less often; after the categories, so a setting that follows the target is not a dimension. */
const SETTINGS = [
  "direct",
  "ioengine",
  "data",
  "multipart",
  "chunker",
  "cidVersion",
  "rawLeaves",
  "pin",
  "ramp",
];
/** Dimensions that make a good colour (or, failing a parameter sweep, x). */
export const CATEGORY_PRIORITY = ["target", "op", "engine", "run"];
/** Parameters that never make a chart dimension. */
const NOT_DIMENSIONS = new Set(["repeat", "warmup", "sample", "autotune", "steady", "precondition"]);

export function dimValue(entry: Entry, dim: string): unknown {
  switch (dim) {
    case "run":
      return entry.run.label;
    case "target":
      return entry.c.target;
    case "op":
      return entry.c.op;
    case "engine":
      return entry.c.engine;
    case "case":
      return entry.c.id;
    default:
      return entry.c.params[dim];
  }
}

export const dimLabel = (entry: Entry, dim: string): string => formatParam(dim, dimValue(entry, dim));

/** The distinct values of a dimension among entries, sorted (numbers numerically), as labels. */
export function dimOrder(entries: readonly Entry[], dim: string): string[] {
  const values = new Map<string, unknown>();
  for (const entry of entries) {
    const value = dimValue(entry, dim);
    values.set(formatParam(dim, value), value);
  }
  if (dim === "run" || dim === "target" || dim === "op" || dim === "case") return [...values.keys()];
  return [...values.entries()].sort((a, b) => compareParamValues(a[1], b[1])).map(([label]) => label);
}

/** Groups the entries of all runs by workload, in the order workloads first appear. */
export function workloadViews(runs: readonly RunData[]): WorkloadView[] {
  const byName = new Map<string, Entry[]>();
  const descriptions = new Map<string, string>();
  for (const run of runs) {
    for (const c of run.cases) {
      const list = byName.get(c.workload) ?? [];
      list.push({ run, c });
      byName.set(c.workload, list);
    }
    for (const [name, workload] of Object.entries(run.plan.workloads ?? {})) {
      if (workload.description && !descriptions.has(name)) descriptions.set(name, workload.description);
    }
  }
  return [...byName.entries()].map(([name, entries]) => {
    const runCount = new Set(entries.map((e) => e.run)).size;
    return {
      name,
      ...(descriptions.has(name) && { description: descriptions.get(name)! }),
      entries,
      dims: varyingDims(entries, runCount > 1),
      multiRun: runCount > 1,
    };
  });
}

/**
 * The dimensions that vary, in priority order (x candidates, then categories, then anything else), without
 * those that are a function of one already kept (objects that always equal concurrency, a run that holds
 * exactly one target): they would separate nothing.
 */
export function varyingDims(entries: readonly Entry[], multiRun: boolean): string[] {
  const paramNames = new Set<string>();
  for (const { c } of entries) for (const key of Object.keys(c.params)) paramNames.add(key);
  const candidates = [
    ...X_PRIORITY.filter((d) => paramNames.has(d)),
    ...CATEGORY_PRIORITY.filter((d) => d !== "run" || multiRun),
    ...SETTINGS.filter((d) => paramNames.has(d)),
    ...[...paramNames]
      .filter(
        (d) =>
          !X_PRIORITY.includes(d) &&
          !CATEGORY_PRIORITY.includes(d) &&
          !SETTINGS.includes(d) &&
          !NOT_DIMENSIONS.has(d),
      )
      .sort(),
  ];
  // An autotuned parameter's value is a result (the knee each case found), not something the spec varied:
  // were it a dimension, the op it differs by would look like a function of it and be dropped.
  const tuned = new Set(entries.flatMap(({ c }) => (c.autotune ? [c.autotune.param] : [])));
  const kept: string[] = [];
  for (const dim of candidates.filter((d) => !tuned.has(d))) {
    const labels = entries.map((e) => dimLabel(e, dim));
    if (new Set(labels).size < 2) continue;
    if (kept.some((other) => isFunctionOf(entries, dim, other))) continue;
    kept.push(dim);
  }
  return kept;
}

/** Whether every value of `other` goes with exactly one value of `dim`. */
function isFunctionOf(entries: readonly Entry[], dim: string, other: string): boolean {
  const seen = new Map<string, string>();
  for (const entry of entries) {
    const key = dimLabel(entry, other);
    const value = dimLabel(entry, dim);
    const before = seen.get(key);
    if (before !== undefined && before !== value) return false;
    seen.set(key, value);
  }
  return true;
}

export interface Layout {
  x?: string;
  color?: string;
  facets: string[];
}

/** The default layout of a workload's dimensions. */
export function chooseLayout(dims: readonly string[]): Layout {
  const x =
    dims.find((d) => X_PRIORITY.includes(d)) ?? dims.find((d) => CATEGORY_PRIORITY.includes(d)) ?? dims[0];
  const rest = dims.filter((d) => d !== x);
  const color =
    rest.find((d) => d === "run") ??
    rest.find((d) => CATEGORY_PRIORITY.includes(d)) ??
    rest.find((d) => X_PRIORITY.includes(d)) ??
    rest[0];
  return { ...(x && { x }), ...(color && { color }), facets: rest.filter((d) => d !== color) };
}

/** A composite label of several dimensions: "bs=4KiB · read=65%". */
export function compositeLabel(entry: Entry, dims: readonly string[]): string {
  if (dims.length === 1) return dimLabel(entry, dims[0]!);
  return dims.map((d) => `${d}=${dimLabel(entry, d)}`).join(" · ");
}

export function compositeOrder(entries: readonly Entry[], dims: readonly string[]): string[] {
  if (dims.length === 0) return [];
  if (dims.length === 1) return dimOrder(entries, dims[0]!);
  const orders = dims.map((d) => dimOrder(entries, d));
  const ranks = new Map<string, number[]>();
  for (const entry of entries) {
    const label = compositeLabel(entry, dims);
    if (!ranks.has(label))
      ranks.set(
        label,
        dims.map((d, i) => orders[i]!.indexOf(dimLabel(entry, d))),
      );
  }
  return [...ranks.entries()]
    .sort(([, ra], [, rb]) => {
      for (let i = 0; i < ra.length; i += 1) if (ra[i] !== rb[i]) return ra[i]! - rb[i]!;
      return 0;
    })
    .map(([label]) => label);
}
