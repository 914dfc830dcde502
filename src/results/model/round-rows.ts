/**
 * The rows of workloads in rounds as a thread sends them to another (the model keeps them whole until the
 * rounds' window is known: accumulator.ts). A row of the usual shape — measured, no error, nothing but its
 * identity, repetition, timing and latency percentiles — goes as numbers in one Float64Array, its case's
 * identity once; any other row goes whole. Sent whole, a million rows took seconds to receive, most of it
 * their identity's strings, cloned again for every row.
 */
import { CASE_IDENTITY, type CaseIdentityField, type Latency } from "../../rows/row.js";
import type { RowLike } from "./types.js";

type Identity = Pick<RowLike, CaseIdentityField>;

/** The keys a packed row may have: its case's identity, what is packed, and what the model does not read. */
const PACKABLE = new Set<string>([
  ...CASE_IDENTITY,
  "v",
  "repetition",
  "warmup",
  "ok",
  "seconds",
  "throughput",
  "iops",
  "latency",
  "start",
  "end",
  "bytes",
  "ops",
]);
const LATENCY = ["mean", "p50", "p90", "p99", "p99.9"] as const satisfies readonly (keyof Latency)[];
const LATENCY_KEYS = new Set<string>(LATENCY);
/** Per packed row: its identity, repetition, seconds, throughput, iops, which latency fields it has, them. */
const WIDTH = 6 + LATENCY.length;

export interface PackedRoundRows {
  /** Per row, in order: packed (1) or whole (0). */
  packed: Uint8Array;
  identities: Identity[];
  numbers: Float64Array;
  whole: RowLike[];
}

function packable(row: RowLike): boolean {
  if (row.ok !== true || row.warmup === true) return false;
  for (const key in row) if (!PACKABLE.has(key)) return false;
  for (const field of ["repetition", "seconds", "throughput", "iops"] as const)
    if (typeof row[field] !== "number") return false;
  const latency = row.latency;
  if (latency === undefined) return true;
  if (typeof latency !== "object" || latency === null) return false;
  for (const key in latency)
    if (!LATENCY_KEYS.has(key) || typeof latency[key as keyof Latency] !== "number") return false;
  return true;
}

export function packRoundRows(rows: readonly RowLike[]): PackedRoundRows {
  const packed = new Uint8Array(rows.length);
  const identities: Identity[] = [];
  const current = new Map<string, number>();
  const numbers: number[] = [];
  const whole: RowLike[] = [];
  rows.forEach((row, i) => {
    if (!packable(row)) {
      whole.push(row);
      return;
    }
    packed[i] = 1;
    // The case's identity, new when a field differs (a row parsed whole has its own params object).
    let at = current.get(row.case);
    if (at === undefined || CASE_IDENTITY.some((field) => identities[at!]![field] !== row[field])) {
      at = identities.push(Object.fromEntries(CASE_IDENTITY.map((f) => [f, row[f]])) as Identity) - 1;
      current.set(row.case, at);
    }
    const latency = row.latency;
    let mask = 0;
    if (latency) LATENCY.forEach((field, bit) => (mask |= latency[field] === undefined ? 0 : 1 << bit));
    numbers.push(at, row.repetition, row.seconds, row.throughput, row.iops, mask);
    for (const field of LATENCY) numbers.push(latency?.[field] ?? NaN);
  });
  return { packed, identities, numbers: Float64Array.from(numbers), whole };
}

/** The rows packRoundRows packed, in their order: a packed one as the fields the model reads. */
export function unpackRoundRows(rows: PackedRoundRows): RowLike[] {
  const { packed, identities, numbers, whole } = rows;
  const out: RowLike[] = [];
  let w = 0;
  let at = 0;
  for (const isPacked of packed) {
    if (!isPacked) {
      out.push(whole[w++]!);
      continue;
    }
    const id = identities[numbers[at]!]!;
    const mask = numbers[at + 5]!;
    let latency: Latency | undefined;
    if (mask) {
      latency = {};
      LATENCY.forEach((field, bit) => {
        if (mask & (1 << bit)) latency![field] = numbers[at + 6 + bit]!;
      });
    }
    out.push({
      source: id.source,
      spec: id.spec,
      specHash: id.specHash,
      case: id.case,
      workload: id.workload,
      target: id.target,
      engine: id.engine,
      op: id.op,
      params: id.params,
      repetition: numbers[at + 1]!,
      warmup: false,
      ok: true,
      seconds: numbers[at + 2]!,
      throughput: numbers[at + 3]!,
      iops: numbers[at + 4]!,
      latency,
    });
    at += WIDTH;
  }
  return out;
}
