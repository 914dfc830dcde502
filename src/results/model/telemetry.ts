/**
 * The per-case telemetry of result rows, folded in as they stream past: per case and host one summary
 * combined from the rows', and its verdict: which resources were saturated, and whether that makes the case
 * client-bound. Summaries are combined in batches, so memory stays per case, not per row.
 */
import { engineParams } from "../../spec/engines.js";
import { ENGINES, isEngineName } from "../../engines/index.js";
import { combineSummaries } from "../../telemetry/summary.js";
import { SELF, type TelemetrySummary } from "../../rows/telemetry.js";
import { describeSaturation, saturation, type NicLimit } from "../../telemetry/verdict.js";
import type { HostTelemetry } from "./types.js";

/** The part of a result row the telemetry is read from. */
export interface TelemetryOf {
  telemetry?: TelemetrySummary;
  hosts?: readonly { host: string; telemetry?: TelemetrySummary }[];
}

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
    // The row's own telemetry (a local run) first, then each host's in the order they came.
    const ordered = [...hosts].sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : 0));
    const found = ordered.flatMap(([host, list]) => {
      const summary = combineSummaries(list);
      if (!summary) return [];
      const saturated = saturation(summary, nics).map(describeSaturation);
      return [{ ...(host !== "" && { host }), summary, saturated }];
    });
    return found.length > 0 ? found : undefined;
  }
}

/**
 * The client-bound warnings of a case: a client resource (not a device) saturated on some host means the
 * numbers may measure the client, not the storage. `threads`: whether the engine can run more client threads.
 */
export function clientBoundWarnings(
  telemetry: readonly HostTelemetry[],
  engine: string,
  nics: readonly NicLimit[],
): string[] {
  return telemetry.flatMap(({ host, summary }) => {
    const client = saturation(summary, nics).filter((found) => found.resource !== "device");
    if (client.length === 0) return [];
    const ownThread = client.some((found) => found.resource === "thread" && found.process === SELF);
    const remedy =
      ownThread && isEngineName(engine) && engineParams(ENGINES[engine].language).has("threads")
        ? "; more client threads may help (`threads: N`)"
        : "";
    return [
      `client-bound${host ? ` on ${host}` : ""}: ${client.map(describeSaturation).join("; ")}, so these numbers may measure the client, not the storage${remedy}`,
    ];
  });
}
