/**
 * What a compiled fio-client/<group>.sh left in its output directory, as rows of each host: per case and
 * repetition, fio's json+ of one client run over every host (OUT/<case>/{w,r}N.json) and the instant it
 * started (.start). Each host's row comes from its own client_stats entries, read as benchspec run's fio
 * transport reads them (engines/fio/results.ts): bytes, operations, its runtime and completion-latency
 * bins; fio reports no start per server, so every host's `start` is the client's and its `end` that plus
 * its own runtime. A host fio reported nothing for has a failed row saying what fio printed.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fioServer } from "../engines/fio/clients.js";
import { measurementFromFio, outputsByServer, type FioOutput } from "../engines/fio/results.js";
import { failedMeasurement, outputTail } from "../engines/measurement.js";
import type { Measurement } from "../engines/types.js";
import { caseFields, type Case } from "../plan/types.js";
import type { ResultRow } from "../rows/row.js";

/** The file the script copies its group's hosts into (and what marks an output directory as its). */
export const FIO_CLIENT_HOSTS = "fio-client.json";

export interface FioClientHosts {
  group: string;
  hosts: string[];
}

export const isFioClientOutput = (dir: string) => existsSync(join(dir, FIO_CLIENT_HOSTS));

export function readFioClientHosts(dir: string): FioClientHosts {
  const parsed = JSON.parse(readFileSync(join(dir, FIO_CLIENT_HOSTS), "utf8")) as Partial<FioClientHosts>;
  if (typeof parsed.group !== "string" || !Array.isArray(parsed.hosts) || parsed.hosts.length === 0)
    throw new Error(`${FIO_CLIENT_HOSTS} names no group and hosts`);
  return { group: parsed.group, hosts: parsed.hosts.map(String) };
}

/** Each host's rows (in the hosts' order), from the repetitions of `cases` found under `dir`. */
export function fioClientRows(
  dir: string,
  { group, hosts }: FioClientHosts,
  cases: readonly Case[],
  spec: { spec: string; specHash: string },
): ResultRow[][] {
  const servers = hosts.map(fioServer);
  const rows: ResultRow[][] = hosts.map(() => []);
  for (const c of cases.filter((c) => c.params.hosts === group)) {
    const caseDir = join(dir, c.id);
    if (!existsSync(caseDir)) continue;
    for (const file of readdirSync(caseDir).sort()) {
      const match = /^([wr])(\d+)\.json$/.exec(file);
      if (!match) continue;
      const warmup = match[1] === "w";
      const repetition = Number(match[2]);
      const base = join(caseDir, file.replace(/\.json$/, ""));
      const startMs = Number(readFileSync(`${base}.start`, "utf8").trim());
      const said = existsSync(`${base}.log`) ? readFileSync(`${base}.log`, "utf8") : "";
      let outputs = new Map<string, FioOutput>();
      let unreadable: string | undefined;
      try {
        outputs = outputsByServer(readFileSync(`${base}.json`, "utf8"));
      } catch (error) {
        unreadable = (error as Error).message;
      }
      servers.forEach((server, k) => {
        const output = outputs.get(`${server.host},${server.port}`);
        const measurement = output
          ? hostMeasurement(output, c.id, startMs)
          : failedMeasurement(
              startMs,
              startMs,
              `fio reported nothing for this server (${unreadable ?? "no client_stats entry"}); fio said: ${outputTail(said) || "nothing"}`,
            );
        const { timeseries: _series, samples: _samples, errorCode: _code, ...result } = measurement;
        rows[k]!.push({
          v: 1,
          source: "shell",
          spec: spec.spec,
          specHash: spec.specHash,
          ...caseFields(c),
          repetition,
          warmup,
          host: hosts[k]!,
          ...result,
        });
      });
    }
  }
  return rows;
}

/** The host's window: its own runtime from the client's start (measurementFromFio's default end). */
function hostMeasurement(output: FioOutput, id: string, startMs: number): Measurement {
  try {
    return measurementFromFio(output, id, startMs);
  } catch (error) {
    return failedMeasurement(startMs, startMs, (error as Error).message);
  }
}
