/**
 * Cases that ran on several client hosts — or several targets — at once: each part's own figures (a row's
 * `hosts` or `targets`), folded in as rows stream past, and per case and part the medians over its
 * repetitions. Rows of one host add nothing
 * here, so single-host runs cost nothing and their reports do not change.
 */
import type { ResultRow } from "../../rows/row.js";
import { maxOf, median } from "../../rows/stats.js";
import type { CaseHosts, HostAgg } from "./types.js";

/** The parts of a merged row: the client hosts of a case, or the targets of a case over several at once. */
export type PartAxis = "host" | "target";

/** The fields of a row this module reads. */
export type HostsRow = Pick<ResultRow, "case" | "repetition" | "hosts" | "targets" | "startSpread">;

/** A part of a merged row: one host's figures, or one target's. */
type Part = NonNullable<ResultRow["hosts"]>[number] | NonNullable<ResultRow["targets"]>[number];

/** One host's figures in one repetition. */
interface HostRep {
  host: string;
  ok: boolean;
  error?: string;
  throughput: number;
  iops: number;
  seconds: number;
  /** Seconds from the earliest host's start to this host's. */
  offset: number;
  p50?: number;
  p99?: number;
}

/**
 * A repetition's record in a case's `records`: its repetition, start spread (NaN: none) and number of
 * parts, then per part its name's index, ok (1 or 0), throughput, iops, seconds, offset, p50 and p99
 * (NaN: none). Flat numbers, not an object per host and repetition: a million merged rows' worth of those
 * took gigabytes.
 */
const REP_HEADER = 3;
const PART_SIZE = 8;

/** Per case, its repetitions' parts: the records, and the errors of failed parts by their record offset. */
interface CaseParts {
  by: PartAxis;
  records: Float64Array;
  length: number;
  /** Per repetition, its standing record's offset (a retried failure's replacement stands), in that order. */
  standing: Map<number, number>;
  errors: Map<number, string>;
}

/** Plain data for another thread (rows-threads.ts): the names the records index, and per case its records. */
export interface HostsPartial {
  names: string[];
  cases: [caseId: string, by: PartAxis, records: Float64Array, errors: [at: number, error: string][]][];
}

export class HostAccumulator {
  private readonly cases = new Map<string, CaseParts>();
  private readonly names: string[] = [];
  private readonly nameIndex = new Map<string, number>();

  add(row: HostsRow): void {
    const by: PartAxis = row.hosts ? "host" : "target";
    const parts: readonly Part[] | undefined = row.hosts ?? row.targets;
    if (!parts || parts.length === 0) return;
    // The row's start is the earliest part's (merge-hosts.ts); taken from the parts, rows made elsewhere agree.
    let start = Infinity;
    for (const part of parts) start = Math.min(start, Date.parse(part.start));
    const c = this.caseParts(row.case, by);
    const at = this.reserve(c, REP_HEADER + parts.length * PART_SIZE);
    const records = c.records;
    records[at] = row.repetition;
    records[at + 1] = row.startSpread ?? NaN;
    records[at + 2] = parts.length;
    for (let i = 0, to = at + REP_HEADER; i < parts.length; i += 1, to += PART_SIZE) {
      const h = parts[i]!;
      if (h.error !== undefined) c.errors.set(to, h.error);
      records[to] = this.nameOf("host" in h ? h.host : h.target);
      records[to + 1] = h.ok ? 1 : 0;
      records[to + 2] = h.throughput;
      records[to + 3] = h.iops;
      records[to + 4] = h.seconds;
      records[to + 5] = (Date.parse(h.start) - start) / 1000;
      records[to + 6] = h.latency?.p50 ?? NaN;
      records[to + 7] = h.latency?.p99 ?? NaN;
    }
    this.stand(c, at);
  }

  /** Undefined when no row had several hosts (nothing to send); the records' buffers to transfer. */
  partial(): { partial: HostsPartial; transfer: ArrayBuffer[] } | undefined {
    if (this.cases.size === 0) return undefined;
    const cases = [...this.cases].map(([id, c]): HostsPartial["cases"][number] => {
      // Only the standing records, in their order: the same as folding the rows again.
      const records: number[] = [];
      const errors: [number, string][] = [];
      for (const at of c.standing.values()) {
        const end = at + REP_HEADER + c.records[at + 2]! * PART_SIZE;
        for (let i = at; i < end; i += 1) {
          const error = c.errors.get(i);
          if (error !== undefined) errors.push([records.length, error]);
          records.push(c.records[i]!);
        }
      }
      return [id, c.by, Float64Array.from(records), errors];
    });
    return {
      partial: { names: [...this.names], cases },
      transfer: cases.map((c) => c[2].buffer as ArrayBuffer),
    };
  }

  /** Adds a partial of the rows that follow those folded in so far. */
  merge(partial: HostsPartial): void {
    const names = partial.names.map((name) => this.nameOf(name));
    for (const [id, by, records, errors] of partial.cases) {
      const errorAt = new Map(errors);
      for (let at = 0; at < records.length;) {
        const end = at + REP_HEADER + records[at + 2]! * PART_SIZE;
        const record = Array.from(records.subarray(at, end));
        for (let part = REP_HEADER; part < record.length; part += PART_SIZE)
          record[part] = names[record[part]!]!;
        const recordErrors: [number, string][] = [];
        for (let i = at; i < end; i += 1) {
          const error = errorAt.get(i);
          if (error !== undefined) recordErrors.push([i - at, error]);
        }
        this.append(id, by, record, recordErrors);
        at = end;
      }
    }
  }

  finish(caseId: string): CaseHosts | undefined {
    const c = this.cases.get(caseId);
    if (!c) return undefined;
    const byHost = new Map<string, HostRep[]>();
    const spreads: number[] = [];
    for (const at of c.standing.values()) {
      const spread = c.records[at + 1]!;
      if (!Number.isNaN(spread)) spreads.push(spread);
      for (let part = at + REP_HEADER, n = 0; n < c.records[at + 2]!; n += 1, part += PART_SIZE) {
        const host = this.names[c.records[part]!]!;
        const known = (value: number) => (Number.isNaN(value) ? undefined : value);
        const error = c.errors.get(part);
        const p50 = known(c.records[part + 6]!);
        const p99 = known(c.records[part + 7]!);
        const rep: HostRep = {
          host,
          ok: c.records[part + 1] === 1,
          ...(error !== undefined && { error }),
          throughput: c.records[part + 2]!,
          iops: c.records[part + 3]!,
          seconds: c.records[part + 4]!,
          offset: c.records[part + 5]!,
          ...(p50 !== undefined && { p50 }),
          ...(p99 !== undefined && { p99 }),
        };
        const list = byHost.get(host);
        if (list) list.push(rep);
        else byHost.set(host, [rep]);
      }
    }
    return {
      by: c.by,
      hosts: [...byHost].map(([host, list]) => hostAgg(host, list)),
      ...(spreads.length > 0 && { startSpread: { median: median(spreads), max: maxOf(spreads) } }),
    };
  }

  private nameOf(name: string): number {
    let index = this.nameIndex.get(name);
    if (index === undefined) {
      index = this.names.push(name) - 1;
      this.nameIndex.set(name, index);
    }
    return index;
  }

  /** A repetition's record (`errors` by offset within it): it stands for its repetition from now on. */
  private append(
    caseId: string,
    by: PartAxis,
    record: readonly number[],
    errors: readonly [number, string][],
  ) {
    const c = this.caseParts(caseId, by);
    const at = this.reserve(c, record.length);
    c.records.set(record, at);
    for (const [offset, error] of errors) c.errors.set(at + offset, error);
    this.stand(c, at);
  }

  private caseParts(caseId: string, by: PartAxis): CaseParts {
    let c = this.cases.get(caseId);
    if (!c) {
      c = { by, records: new Float64Array(64), length: 0, standing: new Map(), errors: new Map() };
      this.cases.set(caseId, c);
    }
    return c;
  }

  /** Room for a record of `size` numbers at the end of the case's records: where it starts. */
  private reserve(c: CaseParts, size: number): number {
    if (c.length + size > c.records.length) {
      const grown = new Float64Array(Math.max(2 * c.records.length, c.length + size));
      grown.set(c.records.subarray(0, c.length));
      c.records = grown;
    }
    const at = c.length;
    c.length += size;
    return at;
  }

  /** The record at `at` stands for its repetition from now on (a retried failure's replacement stands). */
  private stand(c: CaseParts, at: number): void {
    const repetition = c.records[at]!;
    c.standing.delete(repetition);
    c.standing.set(repetition, at);
  }
}

function hostAgg(host: string, reps: readonly HostRep[]): HostAgg {
  const ok = reps.filter((r) => r.ok);
  const failed = reps.filter((r) => !r.ok);
  const mid = (values: (number | undefined)[]) => {
    const known = values.filter((v): v is number => v !== undefined && Number.isFinite(v));
    return known.length > 0 ? median(known) : undefined;
  };
  const figures = {
    throughput: mid(ok.map((r) => r.throughput)),
    iops: mid(ok.map((r) => r.iops)),
    p50: mid(ok.map((r) => r.p50)),
    p99: mid(ok.map((r) => r.p99)),
    seconds: mid(ok.map((r) => r.seconds)),
    offset: mid(reps.map((r) => r.offset)),
  };
  return {
    host,
    repetitions: reps.length,
    failed: failed.length,
    errors: [...new Set(failed.map((r) => r.error ?? "failed"))],
    ...Object.fromEntries(Object.entries(figures).filter(([, v]) => v !== undefined)),
  };
}
