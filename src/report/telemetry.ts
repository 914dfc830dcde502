/**
 * The per-case telemetry of result rows, folded in as they stream past: per case and host one summary
 * combined from the rows' (results/summary.ts's hostTelemetry then gives the verdict, as summary.json has
 * it). Summaries are combined in batches, so memory stays per case, not per row.
 */
import { hostTelemetry, type HostTelemetry, type TelemetryOf } from "../results/summary.js";
import { combineSummaries } from "../telemetry/summary.js";
import type { TelemetrySummary } from "../telemetry/types.js";
import type { NicLimit } from "../telemetry/verdict.js";

/** Summaries kept before they are combined into one. */
const BATCH = 64;

/** A case's hosts: "" for the row's own telemetry (a local run), else the host's name. */
type CaseTelemetry = Map<string, TelemetrySummary[]>;

/** [case, host ("" for the row's own), summary], as JSON: one string to post from a thread. */
export type TelemetryPartial = string;

export class TelemetryAccumulator {
  private readonly cases = new Map<string, CaseTelemetry>();

  /** A successful measured row's telemetry, and that of each of its hosts. */
  add(caseId: string, row: TelemetryOf): void {
    if (row.telemetry) this.push(caseId, "", row.telemetry);
    for (const part of row.hosts ?? []) if (part.telemetry) this.push(caseId, part.host, part.telemetry);
  }

  private push(caseId: string, host: string, summary: TelemetrySummary): void {
    let hosts = this.cases.get(caseId);
    if (!hosts) {
      hosts = new Map();
      this.cases.set(caseId, hosts);
    }
    const list = hosts.get(host) ?? [];
    list.push(summary);
    hosts.set(host, list.length >= BATCH ? [combineSummaries(list)!] : list);
  }

  partial(): TelemetryPartial | undefined {
    if (this.cases.size === 0) return undefined;
    const entries: [string, string, TelemetrySummary][] = [];
    for (const [caseId, hosts] of this.cases)
      for (const [host, list] of hosts) entries.push([caseId, host, combineSummaries(list)!]);
    return JSON.stringify(entries);
  }

  merge(partial: TelemetryPartial): void {
    for (const [caseId, host, summary] of JSON.parse(partial) as [string, string, TelemetrySummary][])
      this.push(caseId, host, summary);
  }

  /** The case's telemetry per host with its verdict (none: its rows had no telemetry). */
  finish(caseId: string, nics: readonly NicLimit[]): HostTelemetry[] | undefined {
    const hosts = this.cases.get(caseId);
    if (!hosts) return undefined;
    const combined = [...hosts].map(([host, list]) => ({ host, telemetry: combineSummaries(list) }));
    const own = combined.find((h) => h.host === "")?.telemetry;
    const row: TelemetryOf = {
      ...(own && { telemetry: own }),
      hosts: combined.flatMap(({ host, telemetry }) =>
        host !== "" && telemetry ? [{ host, telemetry }] : [],
      ),
    };
    const found = hostTelemetry([row], nics);
    return found.length > 0 ? found : undefined;
  }
}
