/**
 * Cases that ran on several client hosts — or several targets — at once: each part's own figures (a row's
 * `hosts` or `targets`), folded in as rows stream past, and per case and part the medians over its
 * repetitions. Rows of one host add nothing
 * here, so single-host runs cost nothing and their reports do not change.
 */
import type { ResultRow } from "../../rows/row.js";
import { maxOf, median, minOf } from "../../rows/stats.js";
import type { CaseHosts, HostAgg } from "./types.js";

/** The parts of a merged row: the client hosts of a case, or the targets of a case over several at once. */
export type PartAxis = "host" | "target";

/** The fields of a row this module reads. */
export type HostsRow = Pick<ResultRow, "case" | "repetition" | "hosts" | "targets" | "startSpread">;

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

interface RepHosts {
  by: PartAxis;
  spread?: number;
  hosts: HostRep[];
}

/** Per case, its repetitions' hosts, as plain data for another thread (rows-threads.ts). */
export type HostsPartial = [caseId: string, repetitions: [repetition: number, hosts: RepHosts][]][];

export class HostAccumulator {
  /** Per case, per repetition: the last row of a repetition stands (a retried failure's replacement). */
  private readonly cases = new Map<string, Map<number, RepHosts>>();

  add(row: HostsRow): void {
    const by: PartAxis = row.hosts ? "host" : "target";
    const hosts =
      row.hosts?.map((h) => ({ ...h, name: h.host })) ?? row.targets?.map((t) => ({ ...t, name: t.target }));
    if (!hosts || hosts.length === 0) return;
    // The row's start is the earliest part's (merge-hosts.ts); taken from the parts, rows made elsewhere agree.
    const start = minOf(hosts.map((h) => Date.parse(h.start)));
    let reps = this.cases.get(row.case);
    if (!reps) {
      reps = new Map();
      this.cases.set(row.case, reps);
    }
    reps.delete(row.repetition);
    reps.set(row.repetition, {
      by,
      ...(row.startSpread !== undefined && { spread: row.startSpread }),
      hosts: hosts.map((h) => ({
        host: h.name,
        ok: h.ok,
        ...(h.error !== undefined && { error: h.error }),
        throughput: h.throughput,
        iops: h.iops,
        seconds: h.seconds,
        offset: (Date.parse(h.start) - start) / 1000,
        ...(h.latency?.p50 !== undefined && { p50: h.latency.p50 }),
        ...(h.latency?.p99 !== undefined && { p99: h.latency.p99 }),
      })),
    });
  }

  /** Undefined when no row had several hosts (nothing to send). */
  partial(): HostsPartial | undefined {
    if (this.cases.size === 0) return undefined;
    return [...this.cases].map(([id, reps]) => [id, [...reps]]);
  }

  /** Adds a partial of the rows that follow those folded in so far. */
  merge(partial: HostsPartial): void {
    for (const [id, reps] of partial) {
      let mine = this.cases.get(id);
      if (!mine) {
        mine = new Map();
        this.cases.set(id, mine);
      }
      for (const [rep, hosts] of reps) {
        mine.delete(rep);
        mine.set(rep, hosts);
      }
    }
  }

  finish(caseId: string): CaseHosts | undefined {
    const reps = this.cases.get(caseId);
    if (!reps) return undefined;
    const byHost = new Map<string, HostRep[]>();
    for (const { hosts } of reps.values())
      for (const h of hosts) byHost.set(h.host, [...(byHost.get(h.host) ?? []), h]);
    const spreads = [...reps.values()].flatMap((r) => (r.spread === undefined ? [] : [r.spread]));
    return {
      by: [...reps.values()][0]!.by,
      hosts: [...byHost].map(([host, list]) => hostAgg(host, list)),
      ...(spreads.length > 0 && { startSpread: { median: median(spreads), max: maxOf(spreads) } }),
    };
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
